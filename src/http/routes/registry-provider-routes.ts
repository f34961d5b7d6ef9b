import type { Engine, Session } from '../../engine/index.js';
import type { Row } from '../../model/index.js';
import type { DescribedRoute, JsonSchema } from './described-route.js';
import { RegistryLookups, equals, pathText, type Place } from './registry-lookups.js';
import { sessionOf } from './request-session.js';

const versions = (item: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['versions'],
  properties: { versions: { type: 'array', items: item } },
});

const protocolsOf = (row: Row) =>
  (typeof row.protocols === 'string' ? row.protocols : '5.0')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');

/** providers.v1: the versions of a provider with their platforms, and the build of one platform. */
export function providerRoutes(engine: Engine, lookups: RegistryLookups): DescribedRoute[] {
  const { records } = lookups;
  const one = lookups.one.bind(lookups);
  const all = lookups.all.bind(lookups);
  type Params = { namespace: string; type: string; version?: string; os?: string; arch?: string };
  const findProvider = async (session: Session, params: Params) => {
    const place = await lookups.namespace(session, params.namespace);
    const row = await one(session, records.provider, [place], equals('name', params.type), `provider ${params.namespace}/${params.type}`);
    return [place, { resource: records.provider, id: String(row.id) }] as Place[];
  };
  const platform: JsonSchema = { type: 'object', properties: { os: { type: 'string' }, arch: { type: 'string' } } };
  const example = { namespace: 'acme', type: 'random' };
  return [
    {
      method: 'GET',
      url: '/terraform/providers/v1/:namespace/:type/versions',
      operationId: 'registry_provider_versions',
      summary: "A provider's versions (providers.v1), with their protocols and platforms",
      params: { namespace: pathText, type: pathText },
      examples: { params: example },
      success: {
        status: 200,
        description: 'The versions.',
        schema: versions({
          type: 'object',
          properties: {
            version: { type: 'string' },
            protocols: { type: 'array', items: { type: 'string' } },
            platforms: { type: 'array', items: platform },
          },
        }),
      },
      errors: [401, 404],
      handler: async (request, reply) => {
        const session = sessionOf(engine, request, reply, 'registry');
        const ancestors = await findProvider(session, request.params as Params);
        const answer = [];
        for (const version of await all(session, records.providerVersion, ancestors)) {
          const builds = await all(session, records.implementation, [
            ...ancestors,
            { resource: records.providerVersion, id: String(version.id) },
          ]);
          answer.push({
            version: String(version.version_number),
            protocols: protocolsOf(version),
            platforms: builds.map((build) => ({ os: String(build.os), arch: String(build.arch) })),
          });
        }
        return reply.send({ versions: answer });
      },
    },
    {
      method: 'GET',
      url: '/terraform/providers/v1/:namespace/:type/:version/download/:os/:arch',
      operationId: 'registry_provider_download',
      summary: "A provider version's build for one platform: its file, checksums and signing keys",
      params: { namespace: pathText, type: pathText, version: pathText, os: pathText, arch: pathText },
      examples: { params: { ...example, version: '3.6.0', os: 'linux', arch: 'amd64' } },
      success: { status: 200, description: 'The build.', schema: providerBuild },
      errors: [401, 404],
      handler: async (request, reply) => {
        const session = sessionOf(engine, request, reply, 'registry');
        const params = request.params as Required<Params>;
        const ancestors = await findProvider(session, params);
        const version = await one(
          session,
          records.providerVersion,
          ancestors,
          equals(lookups.lookup.providerVersion, params.version),
          `version ${params.version} of this provider`,
        );
        const build = await one(
          session,
          records.implementation,
          [...ancestors, { resource: records.providerVersion, id: String(version.id) }],
          `${equals('os', params.os)};${equals('arch', params.arch)}`,
          `build of version ${params.version} for ${params.os}/${params.arch}`,
        );
        const optional = (value: unknown) => (typeof value === 'string' ? value : '');
        return reply.send({
          protocols: protocolsOf(version),
          os: String(build.os),
          arch: String(build.arch),
          filename: String(build.filename),
          download_url: String(build.download_url),
          shasums_url: String(build.shasums_url),
          shasums_signature_url: String(build.shasums_signature_url),
          shasum: String(build.shasum),
          signing_keys: {
            gpg_public_keys: [
              {
                key_id: optional(build.key_id),
                ascii_armor: optional(build.ascii_armor),
                trust_signature: optional(build.trust_signature),
                source: optional(build.source),
                source_url: optional(build.source_url),
              },
            ],
          },
        });
      },
    },
  ];
}

const providerBuild: JsonSchema = {
  type: 'object',
  required: ['os', 'arch', 'filename', 'download_url', 'shasums_url', 'shasums_signature_url', 'shasum', 'signing_keys'],
  properties: {
    protocols: { type: 'array', items: { type: 'string' } },
    os: { type: 'string' },
    arch: { type: 'string' },
    filename: { type: 'string' },
    download_url: { type: 'string' },
    shasums_url: { type: 'string' },
    shasums_signature_url: { type: 'string' },
    shasum: { type: 'string' },
    signing_keys: {
      type: 'object',
      properties: {
        gpg_public_keys: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              key_id: { type: 'string' },
              ascii_armor: { type: 'string' },
              trust_signature: { type: 'string' },
              source: { type: 'string' },
              source_url: { type: 'string' },
            },
          },
        },
      },
    },
  },
};
