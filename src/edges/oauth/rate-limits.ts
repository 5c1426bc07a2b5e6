import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthRateWindows } from '../../capabilities/accounts/index.js';

const MINUTE_MS = 60_000;

/** Each OAuth endpoint's limit per client address (the MCP SDK's defaults), shared by every node. */
export const OAUTH_LIMITS = {
  authorize: { windowMs: 15 * MINUTE_MS, limit: 100 },
  token: { windowMs: 15 * MINUTE_MS, limit: 50 },
  register: { windowMs: 60 * MINUTE_MS, limit: 20 },
  revoke: { windowMs: 15 * MINUTE_MS, limit: 50 },
} as const;

/**
 * An `express-rate-limit` store over the shared windows, for the SDK's handlers (token,
 * registration, revocation): the SDK's default store is a memory per node.
 */
export function sharedWindowStore(windows: OAuthRateWindows, endpoint: keyof typeof OAUTH_LIMITS) {
  const { windowMs } = OAUTH_LIMITS[endpoint];
  return {
    localKeys: false,
    prefix: `${endpoint}:`,
    async increment(key: string) {
      const { hits, resetAt } = await windows.hit(`${endpoint}:${key}`, windowMs);
      return { totalHits: hits, resetTime: new Date(resetAt) };
    },
    // A hit is never given back (the SDK's handlers do not ask to skip any).
    decrement() {},
    resetKey() {},
  };
}

/** /authorize's limit (Atelier's own route): false, with a 429 in OAuth's shape, when over it. */
export function authorizeAdmission(windows: OAuthRateWindows) {
  const { windowMs, limit } = OAUTH_LIMITS.authorize;
  return async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    const { hits, resetAt } = await windows.hit(`authorize:${request.ip}`, windowMs);
    if (hits <= limit) return true;
    await reply
      .code(429)
      .header('retry-after', String(Math.max(1, Math.ceil((resetAt - Date.now()) / 1000))))
      .send({
        error: 'too_many_requests',
        error_description: 'Too many sign-in requests from this address; try again later.',
      });
    return false;
  };
}
