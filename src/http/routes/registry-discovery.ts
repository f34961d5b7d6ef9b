import { ApiError } from '../../errors.js';
import type { DescribedRoute } from './described-route.js';

/**
 * Terraform's service discovery, without a token as Terraform asks it: the registry protocols are
 * on this same origin. Relative addresses, which the protocol resolves against this document's, so
 * no setting has to say what the origin is.
 */
export const discoveryRoute: DescribedRoute = {
  method: 'GET',
  url: '/.well-known/terraform.json',
  operationId: 'terraform_service_discovery',
  summary: 'Where the module and provider registry protocols are (Terraform and OpenTofu service discovery)',
  public: true,
  success: {
    status: 200,
    description: 'The services.',
    schema: {
      type: 'object',
      required: ['modules.v1', 'providers.v1'],
      properties: { 'modules.v1': { type: 'string' }, 'providers.v1': { type: 'string' } },
    },
  },
  errors: [],
  handler: async (_request, reply) => reply.send({ 'modules.v1': '/terraform/modules/v1/', 'providers.v1': '/terraform/providers/v1/' }),
};

/**
 * Terrakube's web UI searches and imports providers of the public registry through its own
 * registry service; Stratum reaches no outside registry, and says so.
 */
export const publicRegistryRoute: DescribedRoute = {
  method: 'GET',
  url: '/registry/v1/providers/*',
  operationId: 'public_registry_search',
  summary: 'Searching or importing providers of the public registry: not offered (404 saying so)',
  success: { status: 404, description: 'Always the error saying so.' },
  errors: [401],
  handler: () =>
    Promise.reject(
      new ApiError(404, {
        code: 'public_registry_unsupported',
        detail:
          'Stratum does not search or import providers of the public registry: it reaches no outside registry. Add the provider, its versions and their builds as records instead.',
      }),
    ),
};
