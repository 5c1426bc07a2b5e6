import {
  ROTATION_GRACE,
  webhookSecretRotateBodySchema,
  webhookSecretRotatedSchema,
  webhookSecretSchema,
} from '../../base/contract/webhooks.js';
import type { WebhooksService } from '../../capabilities/webhooks/index.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, WRITE_AUTH_ERRORS } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';

const TAG = 'Webhooks';

/** GET /user/webhook-secret and POST /user/webhook-secret/rotate: the account's signing secret. */
export function registerWebhookSecretRoutes(app: ZodApp, webhooks: WebhooksService) {
  const secretSchema = {
    tags: [TAG],
    operationId: 'webhookSecret',
    summary: "The account's webhook signing secret",
    description:
      'Deliveries to a generate request\'s callbackUrl are signed per Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">.',
    response: {
      200: jsonResponse('The secret (created on first read)', webhookSecretSchema),
      ...errorResponses(WRITE_AUTH_ERRORS),
    },
  };
  app.get('/user/webhook-secret', { schema: secretSchema }, async (request, reply) => {
    // A credential: no cache along the way may keep it.
    reply.header('cache-control', 'no-store');
    return { secret: await webhooks.secretFor(accountOf(request).id) };
  });

  const rotateSchema = {
    tags: [TAG],
    operationId: 'rotateWebhookSecret',
    summary: "Replace the account's webhook signing secret",
    description: `A new secret signs every delivery from now on. For a grace period (grace_seconds, default ${ROTATION_GRACE.defaultSeconds} = 24 h) deliveries also carry a signature made with the replaced secret — webhook-signature: "v1,<new> v1,<old>", as Standard Webhooks allows — so a receiver can switch to the new secret without losing a delivery. A secret still in its grace from an earlier rotation stops at once. grace_seconds: 0 stops the replaced secret at once (a leaked secret).`,
    body: webhookSecretRotateBodySchema,
    response: {
      200: jsonResponse('The new secret', webhookSecretRotatedSchema),
      ...errorResponses(['invalid_request', ...WRITE_AUTH_ERRORS, 'conflict']),
    },
  };
  app.post('/user/webhook-secret/rotate', { schema: rotateSchema }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const grace = request.body?.grace_seconds ?? ROTATION_GRACE.defaultSeconds;
    const { secret, previousExpiresAt } = await webhooks.rotateSecret(accountOf(request).id, grace);
    return { secret, previous_secret_expires_at: previousExpiresAt };
  });
}
