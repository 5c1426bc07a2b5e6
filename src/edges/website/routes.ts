import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  sessionInfoSchema,
  sessionStateSchema,
  signInBodySchema,
} from '../../base/contract/website/session.js';
import { WEBSITE_TAG } from '../../base/contract/website/shared.js';
import { NotAuthenticated, RateLimited } from '../../base/domain/errors.js';
import type { Account } from '../../capabilities/accounts/index.js';
import { type AccountResolver, MISSING_CREDENTIALS, requireAccount } from '../http/authentication.js';
import { errorResponses, jsonResponse, noContent } from '../http/route-responses.js';
import { accountDataRoutes } from './account-data-routes.js';
import { accountRoutes } from './account-routes.js';
import { apiKeyRoutes } from './api-key-routes.js';
import { createFlowRoutes } from './create-flow-routes.js';
import { creationRoutes } from './creation-routes.js';
import { credentialRoutes, PASSWORD_CHECK_ERRORS } from './credential-routes.js';
import { curationRoutes } from './curation-routes.js';
import { libraryRoutes } from './library-routes.js';
import type { LoginThrottle } from './login-throttle.js';
import { oauthRoutes } from './oauth-routes.js';
import {
  assertSameOrigin,
  clearSessionCookie,
  isUnsafeMethod,
  sessionCookieName,
  sessionResolver,
  setSessionCookie,
} from './session-auth.js';
import type { Sessions } from './sessions.js';
import { smartCollectionRoutes } from './smart-collection-routes.js';
import type { WebsiteServices } from './website-services.js';

export const WRONG_CREDENTIALS = 'Email or password is incorrect';

export interface WebRoutesDeps {
  services: WebsiteServices;
  sessions: Sessions;
  throttle: LoginThrottle;
}

/**
 * The website's own endpoints under /web/api, one function per route: sign-in, sign-out and the
 * session state here; behind the session, a plugin per area (the creation view in creation-routes,
 * saved works in works-routes, the library in library-routes, Create's helpers in
 * create-flow-routes and preset-routes, account settings in account-routes and
 * upstream-key-routes, credentials in credential-routes and api-key-routes). Everything else the
 * website needs it reads from /api/v1 with its session cookie.
 */
export async function webApiRoutes(app: FastifyInstance, deps: WebRoutesDeps) {
  const { services, sessions, throttle } = deps;
  const { publicBaseUrl } = services;

  // Every state-changing request to the website's API must come from the website, sign-in included
  // (a forged sign-in would put the victim's browser into the attacker's account).
  app.addHook('onRequest', async (request) => {
    if (isUnsafeMethod(request.method)) assertSameOrigin(request, publicBaseUrl);
  });
  // The answers are per person: never let a shared cache keep them.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  signInRoute(app, deps);
  signOutRoute(app, deps);
  const resolveSession = sessionResolver(sessions, publicBaseUrl);
  sessionStateRoute(app, resolveSession);

  await app.register(async (authed) => {
    authed.addHook('onRoute', declarePasswordChangeRefusal);
    authed.addHook('onRequest', requireAccount([resolveSession], MISSING_CREDENTIALS.session));

    await authed.register(creationRoutes, { services });
    await authed.register(createFlowRoutes, { services });
    await authed.register(curationRoutes, { services });
    await authed.register(smartCollectionRoutes, { services });
    await authed.register(libraryRoutes, { services });
    await authed.register(accountRoutes, { services });
    await authed.register(credentialRoutes, { services, sessions, throttle });
    await authed.register(accountDataRoutes, { services, sessions, throttle });
    await authed.register(apiKeyRoutes, { services, sessions, throttle });
    await authed.register(oauthRoutes, { services });
  });
}

/** POST /session: sign in (throttled), a new session cookie. */
function signInRoute(app: FastifyInstance, { services, sessions, throttle }: WebRoutesDeps) {
  const { publicBaseUrl } = services;
  app.withTypeProvider<ZodTypeProvider>().post(
    '/session',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Sign in',
        description:
          'Checks email and password and starts a session: sets the HttpOnly session cookie (a new token at every sign-in). Attempts are counted before the password is checked; after a few, per email and client address and (more) per email alone, further ones wait (429 with Retry-After). When the node is busy hashing passwords, 429 as well.',
        // Public: it is how a session starts.
        security: [],
        body: signInBodySchema,
        response: {
          200: jsonResponse('Signed in; the session cookie is set', sessionInfoSchema),
          ...errorResponses(PASSWORD_CHECK_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const email = request.body.email.trim().toLowerCase();
      const { password } = request.body;
      // The attempt is counted (per e-mail and address, and per e-mail) once a hashing slot is held
      // and before the password is checked: guesses sent at once are counted one by one, and a
      // guess refused because the node is busy hashing has spent nothing.
      let waitAfterFailureMs = 0;
      const account = await services.accounts.verifyLogin(email, password, async () => {
        const attempt = await throttle.attempt(email, request.ip);
        if (!attempt.allowed) throw tooManyAttempts(attempt.retryAfterMs);
        waitAfterFailureMs = attempt.waitAfterFailureMs;
      });
      if (!account) {
        if (waitAfterFailureMs > 0) throw tooManyAttempts(waitAfterFailureMs, WRONG_CREDENTIALS);
        throw new NotAuthenticated(WRONG_CREDENTIALS);
      }
      await throttle.succeeded(email, request.ip);

      // A new token at every sign-in (no session fixation); the browser's previous session ends.
      const previous = request.cookies[sessionCookieName(request, publicBaseUrl)];
      if (previous) await sessions.end(previous);
      const session = await sessions.start(account.id, { persistent: request.body.remember === true });
      setSessionCookie(request, reply, publicBaseUrl, session);
      return sessionInfo(account);
    },
  );
}

/** DELETE /session: sign out this browser. */
function signOutRoute(app: FastifyInstance, { services, sessions }: WebRoutesDeps) {
  const { publicBaseUrl } = services;
  app.withTypeProvider<ZodTypeProvider>().delete(
    '/session',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'Sign out',
        description: 'Ends the session, if any, and clears the cookie.',
        // Public: without a session there is nothing to end, and the answer is the same.
        security: [],
        response: { 204: noContent('Signed out'), ...errorResponses(['forbidden']) },
      },
    },
    async (request, reply) => {
      const token = request.cookies[sessionCookieName(request, publicBaseUrl)];
      if (token) await sessions.end(token);
      clearSessionCookie(request, reply, publicBaseUrl);
      return reply.code(204).send(null);
    },
  );
}

/** GET /session: whether this browser is signed in, and as whom. */
function sessionStateRoute(app: FastifyInstance, resolveSession: AccountResolver) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/session',
    {
      schema: {
        tags: [WEBSITE_TAG],
        summary: 'The session state',
        description:
          'Whether this browser is signed in, and as whom, and whether it must set a new password first (after an operator reset). Not being signed in is an answer (`signedIn: false`), not an error, so a signed-out page load logs nothing.',
        // Public: asking whether one is signed in needs no session.
        security: [],
        response: { 200: jsonResponse('The session state', sessionStateSchema), ...errorResponses([]) },
      },
      config: { beforePasswordChange: true },
    },
    async (request) => {
      const account = await resolveSession(request);
      if (!account || account === 'not-mine') return { signedIn: false as const };
      return { signedIn: true as const, ...sessionInfo(account) };
    },
  );
}

/** Who is signed in, as the sign-in and the session state answer it. */
function sessionInfo(account: Account) {
  return {
    email: account.email,
    tier: account.tier,
    operator: account.operator === true,
    passwordChangeRequired: account.passwordChangeRequired === true,
  };
}

/**
 * Every route behind the session refuses it with 403 `password_change_required` until its person
 * replaces a password an operator set, unless it is one for that (`beforePasswordChange`): its
 * document says so beside its own 403s.
 */
function declarePasswordChangeRefusal(route: RouteOptions): void {
  const response = route.schema?.response as Record<string, { description: string }> | undefined;
  if (!response || route.config?.beforePasswordChange) return;
  const declared = response['403'];
  // A response object two routes share is seen twice.
  if (declared?.description.includes('password_change_required')) return;
  response['403'] = declared
    ? { ...declared, description: `${declared.description}, password_change_required` }
    : (errorResponses(['password_change_required'])['403'] as { description: string });
}

/** The refusal of a throttled sign-in; the error handler sets Retry-After from the wait. */
function tooManyAttempts(waitMs: number, prefix?: string): RateLimited {
  const seconds = Math.ceil(waitMs / 1000);
  const wait = `Too many failed sign-in attempts; try again in ${seconds} second${seconds === 1 ? '' : 's'}`;
  return new RateLimited(prefix ? `${prefix}. ${wait}` : wait, waitMs);
}
