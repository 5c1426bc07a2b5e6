import type { FastifyInstance } from 'fastify';
import { accountOf } from '../http/authentication.js';
import { integerParam, pageParam } from '../http/query.js';
import type { WebhooksService } from './webhooks-service.js';

export const MAX_DELIVERIES_LIMIT = 50;

/** GET /user/webhook-secret, GET /webhooks/deliveries and POST /webhooks/deliveries/{id}/redeliver. */
export async function webhookRoutes(app: FastifyInstance, { webhooks }: { webhooks: WebhooksService }) {
  app.get('/user/webhook-secret', async (request, reply) => {
    // A credential: no cache along the way may keep it.
    reply.header('cache-control', 'no-store');
    return { secret: await webhooks.secretFor(accountOf(request).id) };
  });

  app.get<{ Querystring: Record<string, unknown> }>('/webhooks/deliveries', async (request) => {
    const { page, storePage } = pageParam(request.query);
    const limit = integerParam(request.query, 'limit', { default: 20, min: 1, max: MAX_DELIVERIES_LIMIT });
    return { ...(await webhooks.listDeliveries(accountOf(request).id, storePage, limit)), page };
  });

  app.post<{ Params: { id: string } }>('/webhooks/deliveries/:id/redeliver', async (request) =>
    webhooks.redeliver(accountOf(request).id, request.params.id),
  );
}
