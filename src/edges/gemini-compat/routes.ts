import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Catalog } from '../../capabilities/catalog/index.js';
import type { IdempotencyRepository } from '../../capabilities/idempotency/index.js';
import { type AccountResolver, requireAccount } from '../http/authentication.js';
import { installErrorBodies } from '../http/error-handler.js';
import { installIdempotency } from '../http/idempotency-hooks.js';
import { geminiErrorBodies, geminiErrorBody } from './gemini-errors.js';
import type { GeminiRequests } from './generate-content.js';
import { registerGenerateRoutes } from './generate-routes.js';
import { registerModelRoutes } from './model-routes.js';
import { camelizeGeminiBody } from './request-mapping.js';

export { GEMINI_BODY_LIMIT } from './generate-routes.js';

/**
 * Google's Gemini API beside v1 (registered under `/v1beta`): `generateContent` as
 * `@google/genai` calls it, over the same accounts and keys, catalog, generations, storage and
 * history. Every error of these routes leaves in Google's shape (installErrorBodies).
 */
export async function geminiCompatRoutes(
  parent: FastifyInstance,
  deps: {
    catalog: Catalog;
    requests: GeminiRequests;
    idempotency: IdempotencyRepository;
    resolvers: AccountResolver[];
    /** Time to receive a body: the uploads' deadline (inline images ride in the JSON). */
    bodyDeadlineMs: number;
    /**
     * The generate routes again under `/v1`, hidden from the document: `@google/genai` 3 calls
     * `{baseUrl}/v1/…` unless told `apiVersion: 'v1beta'` (GET /v1/models stays OpenAI's).
     */
    alias?: boolean;
  },
) {
  if (deps.alias) {
    parent.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
  }
  installErrorBodies(parent, geminiErrorBodies);
  parent.addHook(
    'onRequest',
    requireAccount(
      deps.resolvers,
      'Missing API key; send "x-goog-api-key: <API_KEY>" or "Authorization: Bearer <API_KEY>"',
    ),
  );
  // Google's JSON takes snake_case names too; rewritten before the schema reads the body.
  parent.addHook('preValidation', async (request) => {
    if (request.method === 'POST') request.body = camelizeGeminiBody(request.body);
  });
  installIdempotency(parent, { repository: deps.idempotency });
  if (!deps.alias) {
    parent.setNotFoundHandler((request, reply) => {
      const message = `No route for ${request.method} ${request.url.split('?')[0]}`;
      return reply.code(404).send(geminiErrorBody(404, 'not_found', message));
    });
  }

  if (!deps.alias) registerModelRoutes(parent, deps.catalog);
  registerGenerateRoutes(parent.withTypeProvider<ZodTypeProvider>(), deps);
}
