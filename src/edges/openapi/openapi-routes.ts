import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { renderDocsPage } from './docs-page.js';
import type { OpenApiDocument } from './openapi-document.js';

/** Both describe the API rather than belong to it: served, but not listed in the document. */
const documentSchema = {
  hide: true,
  response: { 200: z.record(z.string(), z.unknown()).describe('The OpenAPI 3.1 document') },
};
const docsPageSchema = {
  hide: true,
  response: { 200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } } },
};

/** GET /api/v1/openapi.json and the /docs page; public, like any API reference. */
export async function openApiRoutes(parent: FastifyInstance) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  // Generated once, on first read: every route is registered by then.
  let document: OpenApiDocument | undefined;
  let page: string | undefined;
  const current = () => {
    document ??= parent.swagger() as OpenApiDocument;
    return document;
  };
  app.get('/api/v1/openapi.json', { schema: documentSchema }, async (_request, reply) =>
    reply.header('cache-control', 'no-cache').send(current() as unknown as Record<string, unknown>),
  );
  app.get('/docs', { schema: docsPageSchema }, async (_request, reply) => {
    page ??= renderDocsPage(current());
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .send(page);
  });
}
