import type { Registry, ResourceDeclaration } from '../../model/index.js';
import { addExamples, type ExampleSources, type Operation } from './examples.js';

/** Groups of the endpoints that are not resources, by the start of their path. */
const endpointGroups: { prefix: string; tag: string; description: string }[] = [
  {
    prefix: '/access-token/v1/teams/permissions',
    tag: 'permissions',
    description: "The caller's permission flags in an organization or one of its workspaces.",
  },
  {
    prefix: '/access-token/v1/teams',
    tag: 'team tokens',
    description: 'API tokens that act as a member of one team, for automation; revocable.',
  },
  { prefix: '/pat/v1', tag: 'personal tokens', description: 'API tokens that act as their creator; revocable.' },
  { prefix: '/admin/v1', tag: 'administration', description: 'Every team and personal token, for administrators.' },
  { prefix: '/api/v1/operations', tag: 'atomic operations', description: 'Several writes in one transaction, all or none.' },
  {
    prefix: '/terraform/modules/v1',
    tag: 'registry protocols',
    description: "Terraform's module and provider registry protocols over the organization's private registry.",
  },
  {
    prefix: '/terraform/providers/v1',
    tag: 'registry protocols',
    description: "Terraform's module and provider registry protocols over the organization's private registry.",
  },
  {
    prefix: '/terraform/readme/v1',
    tag: 'registry protocols',
    description: "Terraform's module and provider registry protocols over the organization's private registry.",
  },
  {
    prefix: '/.well-known/terraform.json',
    tag: 'registry protocols',
    description: "Terraform's module and provider registry protocols over the organization's private registry.",
  },
  {
    prefix: '/registry/v1',
    tag: 'registry protocols',
    description: "Terraform's module and provider registry protocols over the organization's private registry.",
  },
  { prefix: '/terraform/', tag: 'version lists', description: 'The Terraform and OpenTofu versions the workspace pages offer; public.' },
  { prefix: '/tofu/', tag: 'version lists', description: 'The Terraform and OpenTofu versions the workspace pages offer; public.' },
  {
    prefix: '/notification/v1',
    tag: 'notification deliveries',
    description: 'Test messages to notification destinations, and the deliveries of a workspace, with their retry.',
  },
];

/**
 * What turns the generated OpenAPI document into a page people read: how to get a token, the
 * operations grouped by resource (tags), and example requests and answers for every operation.
 */
export function withGuide(
  document: Record<string, unknown>,
  { adminGroup, ...sources }: ExampleSources & { adminGroup: string },
): Record<string, unknown> {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const { registry } = sources;
  const resources = [...registry.all()];
  addExamples(paths, sources);
  for (const [path, item] of Object.entries(paths)) {
    const group = endpointGroups.find((g) => path.startsWith(g.prefix));
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || Array.isArray(operation) || operation.tags !== undefined) continue;
      operation.tags = [group?.tag ?? 'other'];
    }
  }
  const info = document.info as Record<string, unknown>;
  return {
    ...document,
    info: { ...info, title: 'Stratum API', description: introduction(adminGroup) },
    tags: [
      ...resources.map((resource) => ({ name: resource.type, description: describeResource(resource, registry) })),
      // One entry per tag, though several prefixes may share it.
      ...[...new Map(endpointGroups.map(({ tag, description }) => [tag, { name: tag, description }])).values()],
    ],
  };
}

function introduction(adminGroup: string): string {
  return `Stratum holds the configuration of Terraform/OpenTofu automation and serves it over JSON:API
(\`application/vnd.api+json\`).

**Getting a token.** Every \`/api/v1\` call carries \`Authorization: Bearer <token>\`. On the server's
machine, from its checkout and with its configuration, mint an administrator token:

    npx stratum token --subject you@example.com --groups ${adminGroup} --ttl 12h

then press **Authorize** and paste it. Members of a team use a token from your identity provider, or
a team or personal token (*team tokens*, *personal tokens* below).

**Examples.** Every example is a request that succeeds. Its ids are placeholders, one per type of
record and the same in every path and body (\`0192f3a0-8c4e-7d10-9a6b-000000000001\` is the
organization): replace each with the id of one of your records of that type.

The OpenAPI document behind this page is at [/api/openapi.json](/api/openapi.json); the service's
entry points are listed at [/api/v1](/api/v1). Errors are JSON:API error documents with a stable
\`code\` and, for a request's fault, a \`source.pointer\` or \`source.parameter\`.`;
}

/** A sentence on what a resource is in the tree of records. */
function describeResource(resource: ResourceDeclaration, registry: Registry): string {
  const parent = registry.parentOf(resource);
  const children = Object.values(resource.relationships)
    .filter((r) => r.kind === 'toMany')
    .map((r) => r.type);
  const where =
    parent !== undefined
      ? `lives in ${article(parent.type).toLowerCase()} ${parent.type}.`
      : resource === registry.tenant
        ? 'is a tenant: everything else lives in one.'
        : `belongs to the whole service, in no ${registry.tenant.type}.`;
  const parts = [
    `${article(resource.type)} ${resource.type} ${where}`,
    children.length === 0
      ? ''
      : `It holds ${children.slice(0, -1).join(', ')}${children.length > 1 ? ' and ' : ''}${children.at(-1) ?? ''} records.`,
  ];
  return parts.filter((p) => p !== '').join(' ');
}

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? 'An' : 'A';
}
