import type { FastifyInstance } from 'fastify';
import { accountOf } from '../http/authentication.js';
import { integerParam, pageParam } from '../http/query.js';
import type { GenerationsService } from './generations-service.js';

export const MAX_HISTORY_LIMIT = 50;

/** POST /generate and GET /history. */
export async function generationRoutes(
  app: FastifyInstance,
  { generations }: { generations: GenerationsService },
) {
  // The Idempotency-Key's claim goes along: its answer is recorded with the generation it creates.
  app.post('/generate', async (request) =>
    generations.generate(accountOf(request), request.body, 'api', request.idempotencyClaim),
  );

  app.get<{ Querystring: Record<string, unknown> }>('/history', async (request) => {
    const { page, storePage } = pageParam(request.query);
    const limit = integerParam(request.query, 'limit', { default: 20, min: 1, max: MAX_HISTORY_LIMIT });
    return { ...(await generations.history(accountOf(request), storePage, limit)), page };
  });
}
