import type { Engine } from '../../engine/index.js';
import { ApiError } from '../../errors.js';
import { BoundedWork } from '../bounded-work.js';
import type { RegistryRecords } from '../../model/index.js';
import type { DescribedRoute } from './described-route.js';
import { archiveRoute, type ModuleLinks, type ModuleVersionName } from './module-links.js';
import { pathText, type RegistryLookups } from './registry-lookups.js';

/**
 * A module version's zip, at the address /download names: what Terraform downloads, and what the
 * web UI's module page reads its Inputs and Outputs from. Neither sends a token there, so the
 * signed link is the authority (Terrakube serves these to anyone): a link that does not sign this
 * very version, or has expired, is a 403 that says nothing of whether the module exists.
 */
export function archiveRouteOf(
  engine: Engine,
  lookups: RegistryLookups,
  links: ModuleLinks,
  archive: RegistryRecords['archive'],
): DescribedRoute {
  // Each build reads a repository with git and holds a zip in memory: four at once, 32 waiting.
  const builds = new BoundedWork('module archives', 4, 32);
  return {
    method: 'GET',
    url: archiveRoute,
    operationId: 'registry_module_archive',
    summary: "A module version's files as a zip, by the signed link X-Terraform-Get names (no token)",
    public: true,
    // A HEAD (Terraform's downloader sends one first) would read the repository as GET does, for nothing.
    head: false,
    params: { namespace: pathText, name: pathText, provider: pathText, version: pathText },
    query: { expires: { type: 'string', maxLength: 32 }, signature: { type: 'string', maxLength: 128 } },
    examples: { params: { namespace: 'acme', name: 'network', provider: 'aws', version: '1.0.0' } },
    success: {
      status: 200,
      description: "The module's folder at the version's tag, its files at the top of the archive.",
      mediaType: 'application/zip',
    },
    errors: [
      400,
      { status: 403, description: 'The link does not sign this module version, or has expired: /download gives a new one.' },
      { status: 404, description: 'The module or version is gone since the link was given, or its folder is not in the tag.' },
      {
        status: 409,
        description: 'The tag names other code than when the version was read: refresh the module to read its versions again.',
      },
      { status: 502, description: 'The repository could not be read, or the archive is larger than Stratum serves.' },
      { status: 503, description: 'The server builds as many archives as it takes at once, and as many wait: retry after Retry-After.' },
    ],
    handler: async (request, reply) => {
      const params = request.params as ModuleVersionName;
      const query = request.query as { expires?: string; signature?: string };
      if (!links.allows(params, query.expires, query.signature)) {
        throw new ApiError(403, {
          code: 'invalid_link',
          detail: 'This link does not sign this module version, or it has expired: ask /download for a new one.',
        });
      }
      const service = engine.asService();
      const { session } = service;
      reply.raw.once('close', () => {
        session.close();
      });
      const { row, version, namespace } = await lookups.moduleVersion(session, params);
      const zip = await builds.run(() => archive(row, version, service.secrets(namespace.id)));
      return reply.type('application/zip').header('cache-control', 'private, no-store').send(zip);
    },
  };
}
