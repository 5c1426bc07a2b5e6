import type { FastifyInstance, FastifyReply } from 'fastify';
import { hasKey } from '../accounts/routes.js';
import type { AssetKind } from '../assets/assets-repository.js';
import { DEFAULT_MODEL_ID } from '../catalog/catalog.js';
import type { Core } from '../core.js';
import { accountOf, requireAccount } from '../http/authentication.js';
import { ApiError } from '../http/errors.js';
import { integerParam, pageParam } from '../http/query.js';
import type { LoginThrottle } from './login-throttle.js';
import {
  assertSameOrigin,
  clearSessionCookie,
  isUnsafeMethod,
  sessionCookieOptions,
  sessionResolver,
} from './session-auth.js';
import { SESSION_COOKIE, type Sessions } from './sessions.js';
import type { WebReads } from './web-reads.js';

export const WRONG_CREDENTIALS = 'Email or password is incorrect';
/** Upstreams a person may hold their own key for, whether or not this deployment has them configured yet. */
const KEYED_UPSTREAMS = ['gemini', 'openai', 'replicate'];

export interface WebRoutesDeps {
  core: Core;
  sessions: Sessions;
  reads: WebReads;
  throttle: LoginThrottle;
}

function stringField(body: unknown, field: string, maxLength: number): string {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  if (typeof value !== 'string') throw new ApiError('invalid_request', `${field} is required`);
  if (value.length > maxLength) throw new ApiError('invalid_request', `${field} is too long`);
  return value;
}

/** Providers a key can be set for: the keyed upstreams Atelier knows plus any configured one that requires a key. */
function keyedProviders(core: Core): string[] {
  const names = new Set<string>([...KEYED_UPSTREAMS, ...Object.keys(core.providers.deploymentKeys)]);
  for (const name of core.providers.names()) {
    if (core.providers.get(name)?.requiresKey) names.add(name);
  }
  for (const name of [...names]) {
    if (core.providers.get(name)?.requiresKey === false) names.delete(name);
  }
  return [...names].sort();
}

/**
 * The website's own endpoints under /web/api: sign-in and sign-out, the creation view's pending
 * tasks and web-sourced generate, saved works (with delete), the library, and account settings.
 * Everything else the website needs it reads from /api/v1 with its session cookie.
 */
export async function webApiRoutes(app: FastifyInstance, deps: WebRoutesDeps) {
  const { core, sessions, reads, throttle } = deps;
  const publicBaseUrl = core.config.publicBaseUrl;
  const signedIn = requireAccount([sessionResolver(sessions, publicBaseUrl)]);

  // Every state-changing request to the website's API must come from the website, sign-in included
  // (a forged sign-in would put the victim's browser into the attacker's account).
  app.addHook('onRequest', async (request) => {
    if (isUnsafeMethod(request.method)) assertSameOrigin(request, publicBaseUrl);
  });
  // The answers are per person: never let a shared cache keep them.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  app.post('/session', async (request, reply) => {
    const email = stringField(request.body, 'email', 254).trim().toLowerCase();
    const password = stringField(request.body, 'password', 1024);
    const key = `${email}|${request.ip}`;
    const wait = await throttle.retryAfterMs(key);
    if (wait > 0) throw tooManyAttempts(reply, wait);

    const account = await core.accounts.verifyLogin(email, password);
    if (!account) {
      const delay = await throttle.recordFailure(key);
      if (delay > 0) throw tooManyAttempts(reply, delay, WRONG_CREDENTIALS);
      throw new ApiError('unauthorized', WRONG_CREDENTIALS);
    }
    await throttle.recordSuccess(key);

    // A new token at every sign-in (no session fixation); the browser's previous session ends.
    const previous = request.cookies[SESSION_COOKIE];
    if (previous) await sessions.end(previous);
    const { token, expiresAt } = await sessions.start(account.id);
    reply.setCookie(SESSION_COOKIE, token, sessionCookieOptions(request, publicBaseUrl, expiresAt));
    return { email: account.email, tier: account.tier };
  });

  app.delete('/session', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await sessions.end(token);
    clearSessionCookie(request, reply, publicBaseUrl);
    return reply.code(204).send();
  });

  await app.register(async (authed) => {
    authed.addHook('onRequest', signedIn);

    authed.get('/session', async (request) => {
      const account = accountOf(request);
      return { email: account.email, tier: account.tier };
    });

    authed.post('/generate', async (request) =>
      core.generations.generate(accountOf(request), request.body, 'web'),
    );

    authed.get<{ Querystring: Record<string, unknown> }>('/tasks/pending', async (request) => {
      const now = core.clock.now();
      const since = sinceParam(request.query.since);
      const tasks = await reads.pendingTasks(accountOf(request).id, since);
      return { now, tasks };
    });

    authed.get<{ Querystring: Record<string, unknown> }>('/works', async (request) => {
      const account = accountOf(request);
      const { page, storePage } = pageParam(request.query);
      const limit = integerParam(request.query, 'limit', { default: 24, min: 1, max: 50 });
      return { ...(await core.generations.savedWorks(account, storePage, limit)), page };
    });

    authed.delete<{ Params: { id: string } }>('/works/:id', async (request, reply) => {
      await core.generations.remove(accountOf(request), request.params.id);
      return reply.code(204).send();
    });

    authed.get<{ Querystring: Record<string, unknown> }>('/assets', async (request) => {
      const { page, storePage } = pageParam(request.query);
      const limit = integerParam(request.query, 'limit', { default: 30, min: 1, max: 50 });
      const kind = request.query.kind;
      if (kind !== undefined && kind !== '' && kind !== 'upload' && kind !== 'result') {
        throw new ApiError('invalid_request', 'kind must be upload or result');
      }
      const { items, total } = await reads.libraryPage(accountOf(request).id, {
        page: storePage,
        limit,
        ...(kind ? { kind: kind as AssetKind } : {}),
      });
      return { items, total, page, limit, total_pages: Math.ceil(total / limit) };
    });

    authed.get('/account', async (request) => {
      const account = accountOf(request);
      const own = new Set(await core.accounts.upstreamKeyProviders(account.id));
      const defaultProvider = core.catalog.get(DEFAULT_MODEL_ID)?.provider ?? 'local';
      const providers = keyedProviders(core).map((name) => ({
        name,
        configured: core.providers.get(name) !== undefined,
        own_key: own.has(name),
        deployment_key: Boolean(core.providers.deploymentKeys[name]),
      }));
      return {
        email: account.email,
        tier: account.tier,
        has_key: await hasKey(
          { catalog: core.catalog, providers: core.providers, keys: core.accounts.keyResolver },
          account.id,
        ),
        api_key_hint: (await reads.apiKeyHint(account.id)) ?? null,
        base_url: publicBaseUrl,
        upstream: {
          default_provider: defaultProvider,
          key_required: core.providers.get(defaultProvider)?.requiresKey ?? false,
          providers,
        },
      };
    });

    authed.put<{ Params: { provider: string } }>(
      '/account/upstream-keys/:provider',
      async (request, reply) => {
        const provider = knownKeyedProvider(core, request.params.provider);
        const key = stringField(request.body, 'key', 4096);
        if (key.trim() === '')
          throw new ApiError('invalid_request', 'key must not be empty (to remove a key, DELETE it)');
        await core.accounts.setUpstreamKey(accountOf(request).id, provider, key);
        return reply.code(204).send();
      },
    );

    authed.delete<{ Params: { provider: string } }>(
      '/account/upstream-keys/:provider',
      async (request, reply) => {
        const provider = knownKeyedProvider(core, request.params.provider);
        await core.accounts.setUpstreamKey(accountOf(request).id, provider, '');
        return reply.code(204).send();
      },
    );

    authed.post('/account/api-key', async (request) => {
      const account = accountOf(request);
      const apiKey = await core.accounts.rotateApiKey(account.id);
      return { api_key: apiKey, api_key_hint: await reads.apiKeyHint(account.id) };
    });
  });
}

/** `since`: a time in epoch milliseconds (too long for the shared integer parser, which caps at 9 digits). */
function sinceParam(raw: unknown): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw)) {
    throw new ApiError('invalid_request', 'since must be a time in milliseconds since the epoch');
  }
  return Number(raw);
}

function knownKeyedProvider(core: Core, provider: string): string {
  const known = keyedProviders(core);
  if (!known.includes(provider)) {
    throw new ApiError('invalid_request', `provider must be one of ${known.join(', ')}`);
  }
  return provider;
}

function tooManyAttempts(reply: FastifyReply, waitMs: number, prefix?: string): ApiError {
  const seconds = Math.ceil(waitMs / 1000);
  reply.header('retry-after', String(seconds));
  const wait = `Too many failed sign-in attempts; try again in ${seconds} second${seconds === 1 ? '' : 's'}`;
  return new ApiError('too_many_requests', prefix ? `${prefix}. ${wait}` : wait);
}
