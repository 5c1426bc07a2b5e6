import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks' prefix of a symmetric signing secret. */
export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (the HMAC key is those bytes). */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a `whsec_…` secret: the base64-decoded part after the prefix. */
function keyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('webhook secret must start with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,` + base64 HMAC-SHA256 over
 * `{id}.{timestamp}.{body}`, with the timestamp in whole seconds. `body` must be the exact bytes sent.
 */
export function signWebhook(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  const mac = createHmac('sha256', keyOf(secret))
    .update(`${messageId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}
