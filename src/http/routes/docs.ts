import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** Stratum's mark, layers of rock, and its name: the docs page is Stratum's, not the framework's. */
const logo = `<svg xmlns="http://www.w3.org/2000/svg" width="190" height="40" viewBox="0 0 190 40" role="img" aria-label="Stratum">
<title>Stratum</title>
<path d="M4 12 L20 4 L36 12 L20 20 Z" fill="#5eead4"/>
<path d="M4 20 L9 17.5 L20 23 L31 17.5 L36 20 L20 28 Z" fill="#2dd4bf"/>
<path d="M4 28 L9 25.5 L20 31 L31 25.5 L36 28 L20 36 Z" fill="#0d9488"/>
<text x="46" y="28" font-family="Helvetica, Arial, sans-serif" font-size="22" font-weight="700" fill="#ffffff">Stratum</text>
</svg>`;

const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40">
<path d="M4 12 L20 4 L36 12 L20 20 Z" fill="#5eead4"/>
<path d="M4 20 L9 17.5 L20 23 L31 17.5 L36 20 L20 28 Z" fill="#2dd4bf"/>
<path d="M4 28 L9 25.5 L20 31 L31 25.5 L36 28 L20 36 Z" fill="#0d9488"/>
</svg>`;

// The top bar's address field would point at the page's own copy of the document; the description
// links /api/openapi.json instead.
const css = `.swagger-ui .topbar { background-color: #134e4a; }
.swagger-ui .topbar .download-url-wrapper, .swagger-ui .info hgroup.main > a { display: none; }
.swagger-ui .info .title small { background-color: #0d9488; }`;

/** The API description and a docs page for it, public like the health checks and served from installed assets. */
export async function docs(app: FastifyInstance, { document }: { document: Record<string, unknown> }): Promise<void> {
  app.get('/api/openapi.json', (_request, reply) => reply.send(document));
  // Terrakube's web UI reads the description at /doc (its API docs page renders it with Scalar),
  // sending its bearer token, which a public document does not need.
  app.get('/doc', (_request, reply) => reply.type('application/json; charset=utf-8').send(document));
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    logo: { type: 'image/svg+xml', content: Buffer.from(logo), href: '/api/docs', target: '_self' },
    theme: {
      title: 'Stratum API',
      css: [{ filename: 'stratum.css', content: css }],
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(favicon) }],
    },
    uiConfig: { docExpansion: 'list', defaultModelsExpandDepth: 0, displayRequestDuration: true, persistAuthorization: true },
  });
}
