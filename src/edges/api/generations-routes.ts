import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { GENERATE_ERRORS } from '../../base/contract/generate-errors.js';
import {
  generateBodySchema,
  generateResponseSchema,
  type HistoryPage,
  historyPageSchema,
  historyQuerySchema,
} from '../../base/contract/generations.js';
import { storePageOf } from '../../base/contract/paging.js';
import { QUOTE_TTL_SECONDS, quoteSchema } from '../../base/contract/quotes.js';
import type { GenerationsService } from '../../use-cases/generations/generations-service.js';
import type { CreationReads } from '../../use-cases/read-models/creations.js';
import { accountOf } from '../http/authentication.js';
import { idempotencyHeadersSchema } from '../http/idempotency-hooks.js';
import { compileJsonSerializer, sendJsonText } from '../http/response-serializer.js';
import { AUTH_ERRORS, errorResponses, jsonResponse, WRITE_AUTH_ERRORS } from '../http/route-responses.js';

/**
 * A kept history page (the same object while nothing it shows changes) is serialised once: its
 * text is kept beside it, for the page number it was asked as. One per app, shared by its /api/v1
 * and /v1 routes.
 */
export type HistoryTexts = WeakMap<HistoryPage, { page: number; text: string }>;
export const createHistoryTexts = (): HistoryTexts => new WeakMap();

/** POST /generate and GET /history. */
export async function generationRoutes(
  parent: FastifyInstance,
  {
    generations,
    creations,
    historyTexts = createHistoryTexts(),
  }: {
    generations: Pick<GenerationsService, 'generate' | 'quote'>;
    creations: Pick<CreationReads, 'historyPage'>;
    historyTexts?: HistoryTexts;
  },
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
        ...GENERATE_ERRORS,
        ...WRITE_AUTH_ERRORS,
        'idempotency_in_progress',
        'idempotency_mismatch',
      ]),
    },
  };
  const quoteRouteSchema = {
    tags: ['Generation'],
    operationId: 'quote',
    summary: 'Quote a generate body: expected cost, the most it can cost, and a quote id that binds',
    description: `Takes a generate body (checked as POST /generate checks it, references not fetched) and answers what it is expected to cost, the most it can be charged, and a quote_id valid for ${QUOTE_TTL_SECONDS / 60} minutes on this account. POST /generate with the same body and quote_id is never charged more than max_cost_micros, whatever the catalog's prices are by then: an upstream bill above it is absorbed by the operator (tasks.cost_absorbed_micros, metric atelier_quote_absorbed_micros_total). A different body, an expired quote or another account's is refused (400, quote_id).`,
    body: generateBodySchema,
    response: {
      200: jsonResponse('The quote', quoteSchema),
      ...errorResponses(['invalid_request', ...WRITE_AUTH_ERRORS]),
    },
  };
  app.post('/quotes', { schema: quoteRouteSchema }, async (request) =>
    generations.quote(accountOf(request), request.body),
  );

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
    description:
      'Each item also says whether it is starred and which collections hold it; `starred=true` and `collection` narrow the list (an unknown collection is a 404).',
    querystring: historyQuerySchema,
    response: {
      200: jsonResponse('A page of generations', historyPageSchema),
      ...errorResponses(['invalid_request', ...AUTH_ERRORS, 'not_found']),
    },
  };
  app.get('/history', { schema: historySchema }, async (request, reply) => {
    const { page, limit, ...filters } = request.query;
    const found = await creations.historyPage(accountOf(request).id, storePageOf(page), limit, filters);
    let kept = historyTexts.get(found);
    if (kept === undefined || kept.page !== page) {
      kept = { page, text: compileJsonSerializer(historyPageSchema)({ ...found, page }) };
      historyTexts.set(found, kept);
    }
    return sendJsonText(reply, kept.text);
  });
}
