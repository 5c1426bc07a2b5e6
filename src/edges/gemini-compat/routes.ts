import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  GEMINI_TAG,
  type GeminiGenerateBody,
  geminiErrorBodySchema,
  geminiGenerateBodySchema,
  geminiGenerateResponseSchema,
  geminiModelParamsSchema,
  geminiModelSchema,
  geminiModelsSchema,
  geminiSecurity,
  geminiStreamQuerySchema,
} from '../../base/contract/gemini.js';
import type { Catalog } from '../../capabilities/catalog/catalog.js';
import type { IdempotencyRepository } from '../../capabilities/idempotency/idempotency-repository.js';
import { type AccountResolver, accountOf, requireAccount } from '../http/authentication.js';
import { installErrorBodies } from '../http/error-handler.js';
import { idempotencyHeadersSchema, installIdempotency } from '../http/idempotency-hooks.js';
import { jsonResponse } from '../http/route-responses.js';
import {
  GEMINI_ERROR_STATUSES,
  GeminiCompatError,
  geminiErrorBodies,
  geminiErrorBody,
} from './gemini-errors.js';
import type { GeminiRequests } from './generate-content.js';
import { geminiModel, geminiModelList } from './models.js';
import { camelizeGeminiBody } from './request-mapping.js';

/** A JSON body with inline images: up to 64 MB (each image at most 25 MB once decoded). */
export const GEMINI_BODY_LIMIT = 64 * 1024 * 1024;

type ErrorStatus = keyof typeof GEMINI_ERROR_STATUSES;

/** The error answers a route declares, in Google's shape. */
function geminiErrorResponses(statuses: readonly ErrorStatus[]) {
  return Object.fromEntries(
    [...statuses, 500 as const].map((status) => [
      status,
      {
        description: GEMINI_ERROR_STATUSES[status],
        content: { 'application/json': { schema: geminiErrorBodySchema } },
      },
    ]),
  );
}

const GENERATE_ERRORS = [400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 502, 504] as const;
const NOTE =
  'Synchronous: answers once every image has ended (ceiling ATELIER_OPENAI_WAIT_MS, default 300 s). Authentication: x-goog-api-key or Authorization: Bearer (both: the same key). Idempotency-Key works as on POST /api/v1/generate. Errors in Google’s shape { error: { code, message, status, details } }.';

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
  const app = parent.withTypeProvider<ZodTypeProvider>();

  // Waits still open when the server closes answer at once (504 with their task ids).
  const openWaits = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const stop of [...openWaits]) stop();
  });
  /** Plans, submits and waits; the wait ends early when the caller goes away (the response's close). */
  async function generate(
    request: FastifyRequest,
    reply: FastifyReply,
    model: string,
    body: GeminiGenerateBody,
  ) {
    const planned = deps.requests.plan(model, body);
    let stop = () => {};
    const gone = () => stop();
    reply.raw.once('close', gone);
    try {
      return await deps.requests.run(accountOf(request), planned, (stopWait) => {
        stop = stopWait;
        openWaits.add(stopWait);
      });
    } finally {
      reply.raw.off('close', gone);
      openWaits.delete(stop);
    }
  }

  if (!deps.alias) registerModelRoutes(parent, deps.catalog);

  app.post(
    '/models/:model(^[^:/]+)::generateContent',
    {
      bodyLimit: GEMINI_BODY_LIMIT,
      config: { bodyDeadlineMs: deps.bodyDeadlineMs },
      schema: {
        tags: [GEMINI_TAG],
        security: geminiSecurity,
        operationId: 'geminiGenerateContent',
        summary: 'Generate images (Gemini generateContent)',
        description: `Text parts → prompt; inlineData / fileData parts → references (one = edit, several = fusion); imageConfig.aspectRatio / imageSize → aspect / size (default 1K); candidateCount → images; responseModalities must include IMAGE. One candidate per image, its inlineData the image. ${NOTE}`,
        params: geminiModelParamsSchema,
        headers: idempotencyHeadersSchema,
        body: geminiGenerateBodySchema,
        response: {
          200: jsonResponse('The images that completed, one candidate each', geminiGenerateResponseSchema),
          ...geminiErrorResponses(GENERATE_ERRORS),
        },
      },
    },
    async (request, reply) => generate(request, reply, request.params.model, request.body),
  );

  app.post(
    '/models/:model(^[^:/]+)::streamGenerateContent',
    {
      bodyLimit: GEMINI_BODY_LIMIT,
      config: { bodyDeadlineMs: deps.bodyDeadlineMs },
      schema: {
        tags: [GEMINI_TAG],
        security: geminiSecurity,
        operationId: 'geminiStreamGenerateContent',
        summary: 'Generate images, streamed (Gemini streamGenerateContent)',
        description: `As generateContent, answered once the images have ended as a stream of one chunk: with alt=sse one server-sent event (data: the whole answer), otherwise a JSON array holding it. No partial images. ${NOTE}`,
        params: geminiModelParamsSchema,
        querystring: geminiStreamQuerySchema,
        headers: idempotencyHeadersSchema,
        body: geminiGenerateBodySchema,
        response: {
          200: {
            description: 'One chunk: the whole answer',
            content: {
              'text/event-stream': { schema: z.string().describe('data: <the generateContent answer>') },
              'application/json': { schema: z.array(geminiGenerateResponseSchema) },
            },
          },
          ...geminiErrorResponses(GENERATE_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const answer = await generate(request, reply, request.params.model, request.body);
      if (request.query.alt === 'sse') {
        return reply.type('text/event-stream').send(`data: ${JSON.stringify(answer)}\r\n\r\n`);
      }
      return reply.type('application/json').send(JSON.stringify([answer]));
    },
  );
}

/** GET /models and /models/{model}: the catalog in Google's list shape (`/v1beta` only). */
function registerModelRoutes(parent: FastifyInstance, catalog: Catalog) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/models',
    {
      schema: {
        tags: [GEMINI_TAG],
        security: geminiSecurity,
        operationId: 'geminiModels',
        summary: 'List models (Gemini shape)',
        description:
          'The catalog as Google’s model list (name models/<id>), then each alias (an OpenAI or Google model id) as a model of its own, in one page: pageSize is ignored, and no nextPageToken is issued, so a pageToken is 400 INVALID_ARGUMENT.',
        response: {
          200: jsonResponse('The catalog and its aliases as a Gemini model list', geminiModelsSchema),
          ...geminiErrorResponses([400, 401]),
        },
      },
    },
    async (request) => {
      // A page token Atelier reads back must be one it issued, and it issues none.
      const { pageToken } = request.query as { pageToken?: unknown };
      if (pageToken !== undefined && pageToken !== '') {
        throw new GeminiCompatError(
          400,
          'Invalid pageToken: the model list is one page and issues no page token; list without one.',
          'invalid_request',
          'pageToken',
        );
      }
      return geminiModelList(catalog);
    },
  );

  app.get(
    '/models/:model',
    {
      schema: {
        tags: [GEMINI_TAG],
        security: geminiSecurity,
        operationId: 'geminiModel',
        summary: 'Get a model (Gemini shape)',
        description:
          'A model of the catalog, or an alias, as GET /v1beta/models lists it; unknown: 404 NOT_FOUND.',
        params: geminiModelParamsSchema,
        response: {
          200: jsonResponse('The model', geminiModelSchema),
          ...geminiErrorResponses([401, 404]),
        },
      },
    },
    async (request) => geminiModel(catalog, request.params.model),
  );
}
