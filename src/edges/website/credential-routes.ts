import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  apiKeyListSchema,
  apiKeyParamsSchema,
  createApiKeyBodySchema,
  createdApiKeySchema,
} from '../../base/contract/api-keys.js';
import {
  changePasswordBodySchema,
  confirmPasswordBodySchema,
  rotatedApiKeySchema,
  WEBSITE_TAG,
  websiteSession,
} from '../../base/contract/website.js';
import { Forbidden, InvalidInput, NotFound, RateLimited } from '../../base/domain/errors.js';
import type { Account } from '../../capabilities/accounts/accounts-repository.js';
import { type ApiKey, apiKeyFields } from '../../capabilities/accounts/api-keys-repository.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import type { LoginThrottle } from './login-throttle.js';
import { clearSessionCookie, sessionTokenOf, setSessionCookie } from './session-auth.js';
import type { Sessions } from './sessions.js';
import type { WebsiteServices } from './website-services.js';

/** The refusals of a route that checks a password (sign-in, and asking for it again). */
export const PASSWORD_CHECK_ERRORS = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'request_timeout',
  'payload_too_large',
  'too_many_requests',
] as const;

export const WRONG_PASSWORD = 'Password is incorrect';
/** The refusal of a "new" password that is the one an operator set. */
export const SAME_AS_RESET = 'new_password must differ from the password an operator set';
export const NO_PASSWORD =
  'This account has no password: an operator sets one with "bin/atelier accounts set-password"';

/**
 * What ends or replaces the signed-in person's credentials: sign out everywhere, a password
 * change, an API key rotation. The last two ask for the password again, so a stolen session
 * cannot take the account over; wrong passwords count against the same throttle as sign-in
 * (email + client address), and answer 403 (not 401: the session itself is fine).
 */
export async function credentialRoutes(
  app: FastifyInstance,
  deps: { services: WebsiteServices; sessions: Sessions; throttle: LoginThrottle },
) {
  const { services, sessions, throttle } = deps;
  const { accounts, publicBaseUrl } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  async function confirmPassword(request: FastifyRequest, account: Account, password: string): Promise<void> {
    // Counted before the password is checked, as a sign-in is.
    const attempt = await throttle.attempt(account.email, request.ip);
    if (!attempt.allowed) throw tooManyAttempts(attempt.retryAfterMs);
    const outcome = await accounts.confirmPassword(account.id, password);
    if (outcome === 'no-password') throw new Forbidden(NO_PASSWORD);
    if (outcome === 'wrong') {
      if (attempt.waitAfterFailureMs > 0) throw tooManyAttempts(attempt.waitAfterFailureMs);
      throw new Forbidden(WRONG_PASSWORD);
    }
    await throttle.succeeded(account.email, request.ip);
  }

  api.delete(
    '/sessions',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Sign out everywhere',
        description:
          "Ends every session of the account, on every browser and node, this one included, and clears this browser's cookie. The API key is not affected.",
        security: websiteSession,
        response: {
          204: noContent('Signed out everywhere'),
          ...errorResponses(['unauthorized', 'forbidden']),
        },
      },
    },
    async (request, reply) => {
      await sessions.endAll(accountOf(request).id);
      clearSessionCookie(request, reply, publicBaseUrl);
      return reply.code(204).send(null);
    },
  );

  api.post(
    '/account/password',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Change the password',
        description:
          'Checks the current password, sets the new one, and ends every session of the account; this browser gets a new session (a new cookie, keeping its "keep me signed in" choice). A wrong current password is 403 and counts against the sign-in throttle (429 with Retry-After). After an operator reset this is the one route the session may use (every other answers 403 password_change_required); the new password must then differ from the one the operator set (400), and setting it lifts the restriction.',
        security: websiteSession,
        body: changePasswordBodySchema,
        response: {
          204: noContent('Changed; the other sessions ended'),
          ...errorResponses(PASSWORD_CHECK_ERRORS),
        },
      },
      config: { beforePasswordChange: true },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const { current_password: currentPassword, new_password: newPassword } = request.body;
      if (account.passwordChangeRequired && newPassword === currentPassword)
        throw new InvalidInput(SAME_AS_RESET, 'new_password');
      await confirmPassword(request, account, currentPassword);
      const current = sessionTokenOf(request, publicBaseUrl);
      const persistent = await sessions.isPersistent(current);
      await accounts.setPassword(account.id, newPassword);
      if (current) await sessions.end(current);
      setSessionCookie(request, reply, publicBaseUrl, await sessions.start(account.id, { persistent }));
      return reply.code(204).send(null);
    },
  );

  api.post(
    '/account/api-key',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Rotate the API key',
        description:
          'Asks for the password again, then creates a new API key, shown once in the answer; the previous one stops working at once. A wrong password is 403 and counts against the sign-in throttle (429 with Retry-After); an account without a password cannot rotate from the website (403; the CLI can).',
        security: websiteSession,
        body: confirmPasswordBodySchema,
        response: {
          200: jsonResponse('The new API key', rotatedApiKeySchema),
          ...errorResponses(PASSWORD_CHECK_ERRORS),
        },
      },
    },
    async (request) => {
      const account = accountOf(request);
      await confirmPassword(request, account, request.body.password);
      const apiKey = await accounts.rotateApiKey(account.id);
      return { api_key: apiKey, api_key_hint: (await accounts.apiKeyHint(account.id)) ?? null };
    },
  );

  // The account's API keys (issue 31): listed, created (asking for the password, as rotation
  // does: a stolen session must not mint itself a key), revoked (no password: it only takes away).
  api.get(
    '/account/keys',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: "The account's API keys",
        description:
          'Every working key: name, scope, hint, created, last used (to the minute), expiry. Revoked keys are left out; expired ones are listed as expired.',
        security: websiteSession,
        response: { 200: jsonResponse('The keys', apiKeyListSchema), ...errorResponses(['unauthorized']) },
      },
    },
    async (request) => {
      const now = services.clock.now();
      const keys = await accounts.listKeys(accountOf(request).id);
      return { keys: keys.map((key) => keyJson(key, now)) };
    },
  );

  api.post(
    '/account/keys',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Create an API key',
        description:
          'Asks for the password again, then makes a key with this name, scope (full, or read: polls, history, status and usage only) and optional expiry; the key itself is in the answer, shown this once. A wrong password is 403 and counts against the sign-in throttle (429 with Retry-After); an account without a password cannot create keys here (403; the CLI can). At most 100 working keys.',
        security: websiteSession,
        body: createApiKeyBodySchema,
        response: {
          201: jsonResponse('The new key, shown once', createdApiKeySchema),
          ...errorResponses(PASSWORD_CHECK_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const { name, scope, expires_at: expiresAt, password } = request.body;
      await confirmPassword(request, account, password);
      const created = await accounts.createKey(account.id, { name, scope, expiresAt });
      reply.header('cache-control', 'no-store');
      return reply
        .code(201)
        .send({ key: keyJson(created.key, services.clock.now()), api_key: created.apiKey });
    },
  );

  api.delete(
    '/account/keys/:id',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Revoke an API key',
        description:
          'The key stops working at once, on every node. An unknown, already revoked or another account’s key is 404.',
        security: websiteSession,
        params: apiKeyParamsSchema,
        response: {
          204: noContent('Revoked'),
          ...errorResponses(['unauthorized', 'forbidden', 'not_found']),
        },
      },
    },
    async (request, reply) => {
      const account = accountOf(request);
      const { id } = request.params;
      // By id only: the hint is for people reading a list, the website always has the id.
      if (!(await accounts.listKeys(account.id)).some((key) => key.id === id)) {
        throw new NotFound(`no working key ${id} on this account`);
      }
      await accounts.revokeKey(account.id, id);
      return reply.code(204).send(null);
    },
  );
}

/** A key as the website shows it (its expiry judged at `now`). */
function keyJson(key: ApiKey, now: number) {
  return { ...apiKeyFields(key), expired: key.expiresAt !== null && key.expiresAt <= now };
}

/** The refusal of a throttled password check; the error handler sets Retry-After from the wait. */
function tooManyAttempts(waitMs: number): RateLimited {
  const seconds = Math.ceil(waitMs / 1000);
  return new RateLimited(
    `Too many wrong passwords; try again in ${seconds} second${seconds === 1 ? '' : 's'}`,
    waitMs,
  );
}
