import type { Route } from '../../jsonapi/routes.js';
import type { Attribute, AttributeValue, AttributeValues, Registry, ResourceDeclaration } from '../../model/index.js';

type Operation = Record<string, unknown> & { tags?: string[]; requestBody?: Content; responses?: Record<string, Content> };
type Content = { content?: Record<string, { example?: unknown }> };

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
  { prefix: '/terraform/', tag: 'version lists', description: 'The Terraform and OpenTofu versions the workspace pages offer; public.' },
  { prefix: '/tofu/', tag: 'version lists', description: 'The Terraform and OpenTofu versions the workspace pages offer; public.' },
];

/**
 * What turns the generated OpenAPI document into a page people read: how to get a token, the
 * operations grouped by resource (tags), and example requests and answers for every resource.
 */
export function withGuide(
  document: Record<string, unknown>,
  {
    registry,
    routes,
    examples,
    adminGroup,
  }: { registry: Registry; routes: readonly Route[]; examples: Record<string, AttributeValues>; adminGroup: string },
): Record<string, unknown> {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const resources = [...registry.all()];
  const ids = new Map(
    resources.map((resource, index) => [resource.type, `0192f3a0-8c4e-7d10-9a6b-${(index + 1).toString(16).padStart(12, '0')}`]),
  );
  const sample = (resource: ResourceDeclaration) => exampleAttributes(resource, examples[resource.type]);
  for (const route of routes) {
    const operation = paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
    if (operation === undefined) continue;
    const resource = route.mount.resource;
    const answerOf = (target: ResourceDeclaration) => ({ data: resourceObject(target, sample(target), ids) });
    if (route.kind === 'create') {
      setExample(operation.requestBody, {
        data: { type: resource.type, attributes: sample(resource).input, ...requiredLinks(resource, ids) },
      });
      setExample(operation.responses?.['201'], answerOf(resource));
    } else if (route.kind === 'update') {
      const [first] = Object.entries(sample(resource).input);
      const id = ids.get(resource.type);
      setExample(operation.requestBody, {
        data: { type: resource.type, id, attributes: first === undefined ? {} : { [first[0]]: first[1] } },
      });
    } else if (route.kind === 'read') {
      setExample(operation.responses?.['200'], answerOf(resource));
    } else if (route.kind === 'readRelated') {
      const target = registry.target(route.relationship.link);
      setExample(operation.responses?.['200'], answerOf(target));
    } else if (route.kind === 'list') {
      setExample(operation.responses?.['200'], {
        data: [resourceObject(resource, sample(resource), ids)],
        links: {
          self: `${route.path.replace(/:(\w+)/g, (_, name: string) => ids.get(name.replace(/Id$/, '')) ?? name)}?page[number]=1&page[size]=20`,
          first: '...',
          next: '...',
        },
        meta: { page: { number: 1, limit: 20 } },
      });
    }
  }
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

function setExample(content: Content | undefined, example: unknown): void {
  for (const media of Object.values(content?.content ?? {})) media.example = example;
}

/** A resource object as the API answers it: every attribute, secrets null, to-one links. */
function resourceObject(
  resource: ResourceDeclaration,
  sample: { output: AttributeValues },
  ids: Map<string, string>,
): Record<string, unknown> {
  const relationships = Object.fromEntries(
    Object.entries(resource.relationships)
      .filter(([, r]) => r.kind === 'toOne')
      .map(([name, r]) => [name, { data: { type: r.type, id: ids.get(r.type) } }]),
  );
  return { type: resource.type, id: ids.get(resource.type), attributes: sample.output, relationships };
}

/** The to-one relationships a create must send (other than the parent, which the path gives). */
function requiredLinks(resource: ResourceDeclaration, ids: Map<string, string>): Record<string, unknown> {
  const required = Object.entries(resource.relationships).filter(([, r]) => r.kind === 'toOne' && r.required);
  if (required.length === 0) return {};
  return { relationships: Object.fromEntries(required.map(([name, r]) => [name, { data: { type: r.type, id: ids.get(r.type) } }])) };
}

/** Example attributes: what a create sends, and what an answer holds (read-only and audit ones too, secrets null). */
function exampleAttributes(
  resource: ResourceDeclaration,
  given: AttributeValues | undefined,
): { input: AttributeValues; output: AttributeValues } {
  const input: AttributeValues = {};
  const output: AttributeValues = {};
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    const value = given !== undefined && name in given ? (given[name] ?? null) : fallback(name, attribute);
    const required = 'required' in attribute && attribute.required;
    if (!attribute.readOnly && (given === undefined ? required : name in given)) input[name] = value;
    const secret =
      attribute.kind === 'text' &&
      attribute.secret !== undefined &&
      ('always' in attribute.secret || given?.[attribute.secret.whileTrue] === true);
    output[name] = secret ? null : value;
  }
  return { input, output };
}

function fallback(name: string, attribute: Attribute): AttributeValue {
  switch (attribute.kind) {
    case 'text':
      if (/By$/.test(name)) return 'admin@example.com';
      return attribute.default ?? (attribute.required ? `example ${name}` : null);
    case 'enum':
      return attribute.default ?? attribute.values[0] ?? null;
    case 'boolean':
      return attribute.default;
    case 'integer':
      return attribute.default;
    case 'timestamp':
      return /Date$/.test(name) ? '2025-01-15T09:30:00.000Z' : null;
  }
}

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? 'An' : 'A';
}
