import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { GENERATE_ERRORS } from '../../base/contract/generate-errors.js';
import { generateBodySchema, generateResponseSchema } from '../../base/contract/generations.js';
import type { GenerationsService } from '../../use-cases/generations/index.js';
import type { CreationReads } from '../../use-cases/read-models/index.js';
import { accountOf } from '../http/authentication.js';
import { idempotencyHeadersSchema } from '../http/idempotency-hooks.js';
import { zeroRetentionAsked } from '../http/retention-header.js';
import { errorResponses, jsonResponse, WRITE_AUTH_ERRORS } from '../http/route-responses.js';
import { traceparentOf } from '../http/traceparent.js';
import type { ZodApp } from '../http/zod-app.js';
import { registerActionsRoute } from './actions-routes.js';
import { createHistoryTexts, type HistoryTexts, registerHistoryRoute } from './history-routes.js';
import { registerQuoteRoute } from './quotes-routes.js';

export { createHistoryTexts, type HistoryTexts } from './history-routes.js';

/** POST /quotes, POST /generate, POST /generations/{id}/actions and GET /history: one resource each. */
export async function generationRoutes(
  parent: FastifyInstance,
  {
    generations,
    creations,
    historyTexts = createHistoryTexts(),
  }: {
    generations: Pick<GenerationsService, 'generate' | 'quote' | 'act'>;
    creations: Pick<CreationReads, 'historyPage' | 'versions'>;
    historyTexts?: HistoryTexts;
  },
) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  registerQuoteRoute(app, generations);
  registerGenerateRoute(app, generations);
  registerActionsRoute(app, generations);
  registerHistoryRoute(app, creations, historyTexts);
}

/** POST /generate: one task per image, answered at once with their ids. */
function registerGenerateRoute(app: ZodApp, generations: Pick<GenerationsService, 'generate'>) {
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
  // The Idempotency-Key's claim goes along: its answer is recorded with the generation it creates.
  app.post('/generate', { schema: generateSchema }, async (request) => {
    const answer = await generations.generate(
      accountOf(request),
      request.body,
      'api',
      request.idempotencyClaim,
      { traceparent: traceparentOf(request), zeroRetention: zeroRetentionAsked(request) },
    );
    // Joins this request's id to its tasks' own log lines (task status changed).
    request.log.info({ taskIds: answer.task_ids }, 'tasks created');
    return answer;
  });
}
