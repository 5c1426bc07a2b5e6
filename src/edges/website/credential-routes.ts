import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { changePasswordBodySchema } from '../../base/contract/website/session.js';
import { WEBSITE_TAG, websiteSession } from '../../base/contract/website/shared.js';
import { Forbidden, InvalidInput, RateLimited } from '../../base/domain/errors.js';
import type { Account } from '../../capabilities/accounts/index.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, noContent } from '../http/route-responses.js';
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

/** What the credential routes use: the website's services, its sessions and the sign-in throttle. */
export interface CredentialDeps {
  services: WebsiteServices;
  sessions: Sessions;
  throttle: LoginThrottle;
}

/**
 * What ends or replaces the signed-in person's credentials: sign out everywhere, a password
 * change (an API key rotation and new keys: api-key-routes). Those that replace a credential ask
 * for the password again (confirmPassword), so a stolen session cannot take the account over.
 */
export async function credentialRoutes(app: FastifyInstance, deps: CredentialDeps) {
  signOutEverywhereRoute(app, deps);
  changePasswordRoute(app, deps);
}

/**
 * Asks for the password again. Wrong passwords count against the same throttle as sign-in
 * (email + client address), and answer 403 (not 401: the session itself is fine).
 */
export async function confirmPassword(
  { services, throttle }: Pick<CredentialDeps, 'services' | 'throttle'>,
  request: FastifyRequest,
  account: Account,
  password: string,
): Promise<void> {
  // Counted before the password is checked, as a sign-in is.
  const attempt = await throttle.attempt(account.email, request.ip);
  if (!attempt.allowed) throw tooManyAttempts(attempt.retryAfterMs);
  const outcome = await services.accounts.confirmPassword(account.id, password);
  if (outcome === 'no-password') throw new Forbidden(NO_PASSWORD);
  if (outcome === 'wrong') {
    if (attempt.waitAfterFailureMs > 0) throw tooManyAttempts(attempt.waitAfterFailureMs);
    throw new Forbidden(WRONG_PASSWORD);
  }
  await throttle.succeeded(account.email, request.ip);
}

/** DELETE /sessions: every session of the account ends. */
function signOutEverywhereRoute(app: FastifyInstance, { services, sessions }: CredentialDeps) {
  app.withTypeProvider<ZodTypeProvider>().delete(
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
      clearSessionCookie(request, reply, services.publicBaseUrl);
      return reply.code(204).send(null);
    },
  );
}

/** POST /account/password: a new password; the other sessions end. */
function changePasswordRoute(app: FastifyInstance, deps: CredentialDeps) {
  const { services, sessions } = deps;
  const { accounts, publicBaseUrl } = services;
  app.withTypeProvider<ZodTypeProvider>().post(
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
      await confirmPassword(deps, request, account, currentPassword);
      const current = sessionTokenOf(request, publicBaseUrl);
      const persistent = await sessions.isPersistent(current);
      await accounts.setPassword(account.id, newPassword);
      if (current) await sessions.end(current);
      setSessionCookie(request, reply, publicBaseUrl, await sessions.start(account.id, { persistent }));
      return reply.code(204).send(null);
    },
  );
}

/** The refusal of a throttled password check; the error handler sets Retry-After from the wait. */
function tooManyAttempts(waitMs: number): RateLimited {
  const seconds = Math.ceil(waitMs / 1000);
  return new RateLimited(
    `Too many wrong passwords; try again in ${seconds} second${seconds === 1 ? '' : 's'}`,
    waitMs,
  );
}
