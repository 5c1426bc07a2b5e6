import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { storePageOf } from '../../contract/paging.js';
import {
  deliveriesQuerySchema,
  deliveryIdParamsSchema,
  webhookDeliveriesPageSchema,
  webhookDeliverySchema,
  webhookSecretSchema,
} from '../../contract/webhooks.js';
import type { WebhooksService } from '../../webhooks/webhooks-service.js';
import { accountOf } from '../authentication.js';
import { AUTH_ERRORS, errorResponses, jsonResponse } from '../route-responses.js';

const TAG = 'Webhooks';

/** GET /user/webhook-secret, GET /webhooks/deliveries and POST /webhooks/deliveries/{id}/redeliver. */
export async function webhookRoutes(parent: FastifyInstance, { webhooks }: { webhooks: WebhooksService }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const secretSchema = {
    tags: [TAG],
    operationId: 'webhookSecret',
    summary: "The account's webhook signing secret",
    description:
      'Deliveries to a generate request\'s callbackUrl are signed per Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">.',
    response: {
      200: jsonResponse('The secret (created on first read)', webhookSecretSchema),
      ...errorResponses(AUTH_ERRORS),
    },
  };
  app.get('/user/webhook-secret', { schema: secretSchema }, async (request, reply) => {
    // A credential: no cache along the way may keep it.
    reply.header('cache-control', 'no-store');
    return { secret: await webhooks.secretFor(accountOf(request).id) };
  });

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
      ...errorResponses([...AUTH_ERRORS, 'not_found', 'conflict']),
    },
  };
  app.post('/webhooks/deliveries/:id/redeliver', { schema: redeliverSchema }, async (request) =>
    webhooks.redeliver(accountOf(request).id, request.params.id),
  );
}
