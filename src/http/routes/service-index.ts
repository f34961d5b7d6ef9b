import type { FastifyInstance } from 'fastify';
import { sendDocument } from '../plugins/send-document.js';

/**
 * `GET /` and `GET /api/v1`, without a token: where a newcomer (or a client probing the address)
 * finds the docs, the API description and how to get a token, as a JSON:API document of meta and
 * links. Its links carry only names JSON:API gives a top-level link (the OpenAPI document is what
 * the answer is `describedby`); the other addresses are meta.
 */
export function serviceIndex(app: FastifyInstance, { version, adminGroup }: { version: string; adminGroup: string }): Promise<void> {
  const index = (self: string) => ({
    meta: {
      name: 'Stratum',
      version,
      description: 'Terraform/OpenTofu automation configuration over JSON:API.',
      authentication: `Every /api/v1 request carries "Authorization: Bearer <token>". Mint an administrator token on the server's machine with: npx stratum token --subject you@example.com --groups ${adminGroup}`,
      addresses: { docs: '/api/docs', api: '/api/v1', health: '/healthz', ready: '/readyz' },
    },
    links: { self, describedby: '/api/openapi.json' },
  });
  app.get('/', (_request, reply) => sendDocument(reply, 200, index('/')));
  app.get('/api/v1', (_request, reply) => sendDocument(reply, 200, index('/api/v1')));
  return Promise.resolve();
}
