import type { Engine } from '../../engine/index.js';
import type { RegistryRecords } from '../../model/index.js';
import type { DescribedRoute, JsonSchema } from './described-route.js';
import { originOf, type ModuleLinks } from './module-links.js';
import { archiveRouteOf } from './registry-archive-route.js';
import { providerRoutes } from './registry-provider-routes.js';
import { RegistryLookups, pathText } from './registry-lookups.js';
import { sessionOf } from './request-session.js';

const versions = (item: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['versions'],
  properties: { versions: { type: 'array', items: item } },
});

/**
 * The Terraform registry protocols, as Terrakube's registry serves them: module versions and where
 * to download one, a module version's README (the web UI's module page), and provider versions
 * with the builds of one. Every answer reads the caller's records: a namespace is an organization
 * it can see, by name. The one route without a token, a module version's zip, is `public`: it
 * takes the signed link /download gives instead.
 */
export function registryRoutes(engine: Engine, names: RegistryRecords, links: ModuleLinks): DescribedRoute[] {
  const lookups = new RegistryLookups(engine, names);
  const { records } = lookups;
  const all = lookups.all.bind(lookups);

  type ModuleParams = { namespace: string; name: string; provider: string };
  type VersionParams = ModuleParams & { version: string };

  const moduleParams = { namespace: pathText, name: pathText, provider: pathText };
  // The names of the resource examples' organization and module, so that the examples succeed.
  const moduleExample = { namespace: 'acme', name: 'network', provider: 'aws' };
  const routes: DescribedRoute[] = [
    {
      method: 'GET',
      url: '/terraform/modules/v1/:namespace/:name/:provider/versions',
      operationId: 'registry_module_versions',
      summary: "A module's versions (modules.v1): the tags of its repository, as last read",
      params: moduleParams,
      examples: { params: moduleExample },
      success: {
        status: 200,
        description: 'The versions.',
        schema: {
          type: 'object',
          required: ['modules'],
          properties: { modules: { type: 'array', items: versions({ type: 'object', properties: { version: { type: 'string' } } }) } },
        },
      },
      errors: [401, 404],
      handler: async (request, reply) => {
        const session = sessionOf(engine, request, reply, 'registry');
        const found = await lookups.module(session, request.params as ModuleParams);
        const rows = await all(session, records.moduleVersion, found.ancestors);
        return reply.send({ modules: [{ versions: rows.map((row) => ({ version: String(row.version) })) }] });
      },
    },
    {
      method: 'GET',
      url: '/terraform/modules/v1/:namespace/:name/:provider/:version/download',
      operationId: 'registry_module_download',
      summary:
        "Where Terraform downloads a module version: X-Terraform-Get names its zip, by a link signed for a few minutes; counts the module's downloads",
      params: { ...moduleParams, version: pathText },
      examples: { params: { ...moduleExample, version: '1.0.0' } },
      success: { status: 204, description: 'The X-Terraform-Get header holds the address.' },
      errors: [401, 404],
      handler: async (request, reply) => {
        const session = sessionOf(engine, request, reply, 'registry');
        const params = request.params as VersionParams;
        const { row, namespace } = await lookups.moduleVersion(session, params);
        await session.countUse({ resource: records.module, ancestors: [namespace], id: String(row.id) }, lookups.lookup.moduleDownloads);
        const path = links.pathOf(params);
        // Absolute: the web UI fetches it from its own origin otherwise. Terraform resolves a relative one itself.
        reply.header('x-terraform-get', `${originOf(request) ?? ''}${path}`);
        // As Terrakube sends it; for a configured origin the cross-origin plugin has set its list, which names it too.
        if (!reply.hasHeader('access-control-expose-headers')) reply.header('access-control-expose-headers', 'X-Terraform-Get');
        return reply.code(204).send();
      },
    },
    {
      method: 'GET',
      url: '/terraform/readme/v1/:namespace/:name/:provider/:version/download',
      operationId: 'registry_module_readme',
      summary: "A module version's README.md, base64 (the web UI's module page)",
      params: { ...moduleParams, version: pathText },
      examples: { params: { ...moduleExample, version: '1.0.0' } },
      success: {
        status: 200,
        description: 'The README, empty when the version has none.',
        schema: { type: 'object', required: ['content'], properties: { content: { type: 'string' }, url: { type: ['string', 'null'] } } },
      },
      errors: [401, 404],
      handler: async (request, reply) => {
        const { version } = await lookups.moduleVersion(sessionOf(engine, request, reply, 'registry'), request.params as VersionParams);
        const readme = typeof version.readme === 'string' ? version.readme : '';
        return reply.send({ content: Buffer.from(readme).toString('base64'), url: null });
      },
    },
  ];
  return [...routes, archiveRouteOf(engine, lookups, links, names.archive), ...providerRoutes(engine, lookups)];
}
