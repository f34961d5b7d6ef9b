import type { ReleaseSettings } from '../../config.js';
import type { Logger } from '../../log.js';
import { ReleaseIndex, releaseKinds, shippedIndex, type ReleaseKind } from '../../releases/release-index.js';
import type { DescribedRoute, JsonSchema } from './described-route.js';

/** What Terrakube's web UI reads of each index: the version keys of HashiCorp's, the tag names of GitHub's releases. */
const schemas: Record<ReleaseKind, JsonSchema> = {
  terraform: {
    type: 'object',
    required: ['versions'],
    properties: { name: { type: 'string' }, versions: { type: 'object', additionalProperties: { type: 'object' } } },
  },
  tofu: {
    type: 'array',
    items: { type: 'object', required: ['tag_name'], properties: { tag_name: { type: 'string' }, prerelease: { type: 'boolean' } } },
  },
};

const vendors: Record<ReleaseKind, string> = {
  terraform: "HashiCorp's release index (releases.hashicorp.com/terraform/index.json)",
  tofu: "OpenTofu's releases as GitHub lists them (api.github.com/repos/opentofu/opentofu/releases)",
};

/**
 * `GET /terraform/index.json` and `GET /tofu/index.json`: the versions the workspace pages offer,
 * as Terrakube serves them, without a token (a token sent is not looked at): they hold nothing but
 * the vendors' public release lists.
 */
export function releaseRoutes(settings: ReleaseSettings, log: Logger): DescribedRoute[] {
  const upstreams: Record<ReleaseKind, string | undefined> = { terraform: settings.terraformUrl, tofu: settings.tofuUrl };
  return releaseKinds.map((kind) => {
    const index = new ReleaseIndex(
      kind,
      { upstream: upstreams[kind], cacheMs: settings.cacheSeconds * 1000, timeoutMs: settings.timeoutMs },
      shippedIndex(kind),
      log,
    );
    return {
      method: 'GET',
      url: `/${kind}/index.json`,
      operationId: `${kind}_releases`,
      summary: `The ${kind} versions: ${vendors[kind]}, cached; the list shipped with Stratum when it cannot be reached`,
      public: true,
      success: { status: 200, description: 'The release index.', schema: schemas[kind] },
      errors: [],
      // As bytes: the upstream's document is passed on as it came.
      handler: async (_request, reply) => reply.header('content-type', 'application/json').send(await index.current()),
    };
  });
}
