import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  GEMINI_TAG,
  type GeminiGenerateBody,
  geminiGenerateBodySchema,
  geminiGenerateResponseSchema,
  geminiModelParamsSchema,
  geminiSecurity,
  geminiStreamQuerySchema,
} from '../../base/contract/gemini.js';
import { accountOf } from '../http/authentication.js';
import { idempotencyHeadersSchema } from '../http/idempotency-hooks.js';
import { zeroRetentionAsked } from '../http/retention-header.js';
import { jsonResponse } from '../http/route-responses.js';
import { traceparentOf } from '../http/traceparent.js';
import type { ZodApp } from '../http/zod-app.js';
import { geminiErrorResponses } from './error-responses.js';
import type { GeminiRequests } from './generate-content.js';

/** A JSON body with inline images: up to 64 MB (each image at most 25 MB once decoded). */
export const GEMINI_BODY_LIMIT = 64 * 1024 * 1024;

const GENERATE_ERRORS = [400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 502, 504] as const;
const NOTE =
  'Synchronous: answers once every image has ended (ceiling ATELIER_OPENAI_WAIT_MS, default 300 s). Authentication: x-goog-api-key or Authorization: Bearer (both: the same key). Idempotency-Key works as on POST /api/v1/generate. Errors in Google’s shape { error: { code, message, status, details } }.';

/** What the generate routes run over, and the waits still open. */
interface GenerateContext {
  requests: GeminiRequests;
  /** Time to receive a body: the uploads' deadline (inline images ride in the JSON). */
  bodyDeadlineMs: number;
  /** The stops of the waits in progress, each called when the server closes. */
  openWaits: Set<() => void>;
}

/**
 * POST /models/{model}:generateContent and :streamGenerateContent. Waits still open when the
 * server closes answer at once (504 with their task ids).
 */
export function registerGenerateRoutes(
  app: ZodApp,
  deps: { requests: GeminiRequests; bodyDeadlineMs: number },
) {
  const context: GenerateContext = { ...deps, openWaits: new Set() };
  app.addHook('preClose', async () => {
    for (const stop of [...context.openWaits]) stop();
  });
  generateContentRoute(app, context);
  streamGenerateContentRoute(app, context);
}

/** Plans, submits and waits; the wait ends early when the caller goes away (the response's close). */
async function generate(
  { requests, openWaits }: GenerateContext,
  request: FastifyRequest,
  reply: FastifyReply,
  model: string,
  body: GeminiGenerateBody,
) {
  const planned = {
    ...requests.plan(model, body),
    traceparent: traceparentOf(request),
    zeroRetention: zeroRetentionAsked(request),
  };
  let stop = () => {};
  const gone = () => stop();
  reply.raw.once('close', gone);
  try {
    return await requests.run(accountOf(request), planned, (stopWait) => {
      stop = stopWait;
      openWaits.add(stopWait);
    });
  } finally {
    reply.raw.off('close', gone);
    openWaits.delete(stop);
  }
}

/** POST /models/{model}:generateContent: the images once they have ended. */
function generateContentRoute(app: ZodApp, context: GenerateContext) {
  app.post(
    '/models/:model(^[^:/]+)::generateContent',
    {
      bodyLimit: GEMINI_BODY_LIMIT,
      config: { bodyDeadlineMs: context.bodyDeadlineMs },
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
    async (request, reply) => generate(context, request, reply, request.params.model, request.body),
  );
}

/** POST /models/{model}:streamGenerateContent: the same answer as one chunk (SSE or a JSON array). */
function streamGenerateContentRoute(app: ZodApp, context: GenerateContext) {
  app.post(
    '/models/:model(^[^:/]+)::streamGenerateContent',
    {
      bodyLimit: GEMINI_BODY_LIMIT,
      config: { bodyDeadlineMs: context.bodyDeadlineMs },
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
      const answer = await generate(context, request, reply, request.params.model, request.body);
      if (request.query.alt === 'sse') {
        return reply.type('text/event-stream').send(`data: ${JSON.stringify(answer)}\r\n\r\n`);
      }
      return reply.type('application/json').send(JSON.stringify([answer]));
    },
  );
}
