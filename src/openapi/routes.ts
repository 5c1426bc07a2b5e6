import type { FastifyInstance } from 'fastify';
import { renderDocsPage } from './docs-page.js';
import type { OpenApiDocument } from './openapi-document.js';

/** GET /api/v1/openapi.json and the /docs page; public, like any API reference. */
export async function openApiRoutes(app: FastifyInstance, { document }: { document: OpenApiDocument }) {
  const page = renderDocsPage(document);
  app.get('/api/v1/openapi.json', async (_request, reply) =>
    reply.header('cache-control', 'no-cache').send(document),
  );
  app.get('/docs', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .send(page),
  );
}
