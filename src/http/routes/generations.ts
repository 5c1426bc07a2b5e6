import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  generateBodySchema,
  generateResponseSchema,
  historyPageSchema,
  historyQuerySchema,
} from '../../contract/generations.js';
import { storePageOf } from '../../contract/paging.js';
import type { GenerationsService } from '../../generations/generations-service.js';
import { accountOf } from '../authentication.js';
import { idempotencyHeadersSchema } from '../idempotency-hooks.js';
import { AUTH_ERRORS, errorResponses, jsonResponse } from '../route-responses.js';

/** POST /generate and GET /history. */
export async function generationRoutes(
  parent: FastifyInstance,
  { generations }: { generations: GenerationsService },
) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const generateSchema = {
    tags: ['Generation'],
    operationId: 'generate',
    summary: 'Create generation tasks',
    description:
      'Validates against the catalog, writes one task per image and submits them; answers at once with the task ids.',
    headers: idempotencyHeadersSchema,
    body: generateBodySchema,
    response: {
      200: jsonResponse('Tasks created', generateResponseSchema),
      ...errorResponses([
        'invalid_request',
        'upstream_key_missing',
        ...AUTH_ERRORS,
        'forbidden_model',
        'quota_exceeded',
        'idempotency_in_progress',
        'request_timeout',
        'payload_too_large',
        'unsupported_media_type',
        'invalid_image',
        'idempotency_mismatch',
        'upstream_error',
        'fetch_failed',
      ]),
    },
  };
  // The Idempotency-Key's claim goes along: its answer is recorded with the generation it creates.
  app.post('/generate', { schema: generateSchema }, async (request) => {
    const answer = await generations.generate(
      accountOf(request),
      request.body,
      'api',
      request.idempotencyClaim,
    );
    // Joins this request's id to its tasks' own log lines (task status changed).
    request.log.info({ taskIds: answer.task_ids }, 'tasks created');
    return answer;
  });

  const historySchema = {
    tags: ['History'],
    operationId: 'history',
    summary: 'List generations, newest first',
    querystring: historyQuerySchema,
    response: {
      200: jsonResponse('A page of generations', historyPageSchema),
      ...errorResponses(['invalid_request', ...AUTH_ERRORS]),
    },
  };
  app.get('/history', { schema: historySchema }, async (request) => {
    const { page, limit } = request.query;
    return { ...(await generations.history(accountOf(request), storePageOf(page), limit)), page };
  });
}
