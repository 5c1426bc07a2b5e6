import { storePageOf } from '../../base/contract/paging.js';
import {
  deliveriesQuerySchema,
  deliveryIdParamsSchema,
  webhookDeliveriesPageSchema,
  webhookDeliverySchema,
} from '../../base/contract/webhooks.js';
import type { WebhooksService } from '../../capabilities/webhooks/index.js';
import { accountOf } from '../http/authentication.js';
import { AUTH_ERRORS, errorResponses, jsonResponse, WRITE_AUTH_ERRORS } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';

const TAG = 'Webhooks';

/** GET /webhooks/deliveries and POST /webhooks/deliveries/{id}/redeliver: the account's deliveries. */
export function registerWebhookDeliveryRoutes(app: ZodApp, webhooks: WebhooksService) {
  const deliveriesSchema = {
    tags: [TAG],
    operationId: 'webhookDeliveries',
    summary: 'List webhook deliveries, newest first',
    querystring: deliveriesQuerySchema,
    response: {
      200: jsonResponse('A page of deliveries', webhookDeliveriesPageSchema),
      ...errorResponses(['invalid_request', ...AUTH_ERRORS]),
    },
  };
  app.get('/webhooks/deliveries', { schema: deliveriesSchema }, async (request) => {
    const { page, limit } = request.query;
    return { ...(await webhooks.listDeliveries(accountOf(request).id, storePageOf(page), limit)), page };
  });

  const redeliverSchema = {
    tags: [TAG],
    operationId: 'redeliverWebhook',
    summary: 'Send a delivery again (a new series of attempts, same webhook-id)',
    params: deliveryIdParamsSchema,
    response: {
      200: jsonResponse('The delivery, due now', webhookDeliverySchema),
      ...errorResponses([...WRITE_AUTH_ERRORS, 'not_found', 'conflict']),
    },
  };
  app.post('/webhooks/deliveries/:id/redeliver', { schema: redeliverSchema }, async (request) =>
    webhooks.redeliver(accountOf(request).id, request.params.id),
  );
}
