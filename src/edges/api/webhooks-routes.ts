import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WebhooksService } from '../../capabilities/webhooks/index.js';
import { registerWebhookDeliveryRoutes } from './webhook-deliveries-routes.js';
import { registerWebhookSecretRoutes } from './webhook-secret-routes.js';

/**
 * GET /user/webhook-secret, POST /user/webhook-secret/rotate (webhook-secret-routes.ts), GET
 * /webhooks/deliveries and POST /webhooks/deliveries/{id}/redeliver (webhook-deliveries-routes.ts).
 */
export async function webhookRoutes(parent: FastifyInstance, { webhooks }: { webhooks: WebhooksService }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  registerWebhookSecretRoutes(app, webhooks);
  registerWebhookDeliveryRoutes(app, webhooks);
}
