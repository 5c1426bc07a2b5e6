import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ADMIN_TAG,
  type AdminApiKey,
  adminAccountParamsSchema,
  adminApiKeySchema,
  adminApiKeysSchema,
  adminBudgetBodySchema,
  adminCreatedKeySchema,
  adminCreateKeyBodySchema,
  adminKeyBudgetSchema,
  adminKeyParamsSchema,
  adminKeysQuerySchema,
  adminSecurity,
} from '../../base/contract/admin.js';
import { keyRetentionBodySchema } from '../../base/contract/api-keys.js';
import { NotFound } from '../../base/domain/errors.js';
import { type ApiKey, apiKeyFields } from '../../capabilities/accounts/index.js';
import { apiKeyState, budgetState, keyRetentionState } from '../../capabilities/audit/index.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';
import { ADMIN_AUTH_ERRORS, ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { audited } from './audit-trail.js';

type Limits = { dailyMicros: number | null; monthlyMicros: number | null };

/** A key on the wire (never the key itself: its hint), with its own budgets when it has any. */
export function keyAnswer(key: ApiKey, budget?: Limits): AdminApiKey {
  return {
    ...apiKeyFields(key),
    revoked_at: key.revokedAt,
    budget: budget ? { daily_micros: budget.dailyMicros, monthly_micros: budget.monthlyMicros } : null,
  };
}

/** An account's API keys: list, issue (shown once), revoke (refused at once on every node), budgets. */
export async function adminKeyRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  listKeys(api, deps);
  issueKey(api, deps);
  revokeKey(api, deps);
  setKeyBudget(api, deps);
  setKeyRetention(api, deps);
}

/** The account's id when it exists; 404 otherwise. */
async function requireAccountId(deps: AdminDeps, id: string): Promise<string> {
  if (!(await deps.directory.entry(id))) throw new NotFound('Account not found');
  return id;
}

/** GET /accounts/:id/keys: the keys, with their budgets. */
function listKeys(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/accounts/:id/keys',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: "An account's API keys",
        params: adminAccountParamsSchema,
        querystring: adminKeysQuerySchema,
        response: {
          200: jsonResponse('The keys, oldest first', adminApiKeysSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const id = await requireAccountId(deps, request.params.id);
      const [keys, budgets] = await Promise.all([
        deps.accounts.listKeys(id, { includeRevoked: request.query.revoked === true }),
        deps.budgets.listKeys(id),
      ]);
      const budgetOf = new Map(budgets.map((budget) => [budget.keyId, budget]));
      return { keys: keys.map((key) => keyAnswer(key, budgetOf.get(key.id))) };
    },
  );
}

/** POST /accounts/:id/keys: a new key, shown this once. */
function issueKey(api: ZodApp, deps: AdminDeps) {
  api.post(
    '/accounts/:id/keys',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Issue an API key',
        description:
          'A new key for the account, named, full or read-only, optionally expiring; the key itself is answered this once.',
        params: adminAccountParamsSchema,
        body: adminCreateKeyBodySchema,
        response: {
          201: jsonResponse('The key, shown this once', adminCreatedKeySchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request, reply) => {
      const id = await requireAccountId(deps, request.params.id);
      const { name, scope, expires_at } = request.body;
      const { key, apiKey } = await deps.accounts.createKey(id, {
        name,
        scope,
        expiresAt: expires_at ?? null,
      });
      const target = { type: 'api-key' as const, id: key.id };
      await audited(deps, request, { action: 'key.create', target, before: null, after: apiKeyState(key) });
      reply.code(201);
      return { key: keyAnswer(key), api_key: apiKey };
    },
  );
}

/** DELETE /accounts/:id/keys/:key_id: the key refused from now on. */
function revokeKey(api: ZodApp, deps: AdminDeps) {
  api.delete(
    '/accounts/:id/keys/:key_id',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Revoke an API key',
        description:
          'The key is refused (401 invalid_api_key) at once, on every node. A key already revoked, or not of this account, is 404.',
        params: adminKeyParamsSchema,
        response: {
          200: jsonResponse('The key as revoked', adminApiKeySchema),
          ...errorResponses([...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const id = await requireAccountId(deps, request.params.id);
      const { key_id } = request.params;
      const before = (await deps.accounts.listKeys(id)).find((key) => key.id === key_id);
      const revoked = await deps.accounts.revokeKey(id, key_id);
      await audited(deps, request, {
        action: 'key.revoke',
        target: { type: 'api-key', id: revoked.id },
        before: before ? apiKeyState(before) : null,
        after: apiKeyState(revoked),
      });
      return keyAnswer(revoked);
    },
  );
}

/** PUT /accounts/:id/keys/:key_id/budget: a working key's own budgets. */
function setKeyBudget(api: ZodApp, deps: AdminDeps) {
  api.put(
    '/accounts/:id/keys/:key_id/budget',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: "Set an API key's spend budgets",
        description:
          "Sets the working key's own daily and monthly budgets (micro-dollars, USD): a number sets one, null removes it, absent leaves it. The key's requests are held to these and to its account's (402 budget_exceeded).",
        params: adminKeyParamsSchema,
        body: adminBudgetBodySchema,
        response: {
          200: jsonResponse("The key's budgets as set", adminKeyBudgetSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const id = await requireAccountId(deps, request.params.id);
      const { key_id } = request.params;
      // Only a working key of this account: another account's key is as unknown as a missing one.
      if (!(await deps.accounts.listKeys(id)).some((key) => key.id === key_id))
        throw new NotFound(`no working key ${key_id} on this account`);
      const { daily_micros, monthly_micros } = request.body;
      const before = budgetState(await deps.budgets.getKey(key_id));
      const set = await deps.budgets.setKey(id, key_id, {
        ...(daily_micros === undefined ? {} : { dailyMicros: daily_micros }),
        ...(monthly_micros === undefined ? {} : { monthlyMicros: monthly_micros }),
      });
      const target = { type: 'api-key' as const, id: key_id };
      await audited(deps, request, { action: 'key.budget.set', target, before, after: budgetState(set) });
      return { key_id, daily_micros: set.dailyMicros, monthly_micros: set.monthlyMicros };
    },
  );
}

/** PUT /accounts/:id/keys/:key_id/retention: a working key's own retention, and zero-retention. */
function setKeyRetention(api: ZodApp, deps: AdminDeps) {
  api.put(
    '/accounts/:id/keys/:key_id/retention',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: "Set an API key's retention",
        description:
          "How long the works made with the working key are kept (results_days, 1 to 36500; null removes the key's own) and whether it stores nothing (zero_retention). Absent fields stay; the shortest retention of deployment, tier, account and key applies (docs/operations.md, Data lifecycle). Audited as key.retention.set.",
        params: adminKeyParamsSchema,
        body: keyRetentionBodySchema,
        response: {
          200: jsonResponse('The key as set', adminApiKeySchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const id = await requireAccountId(deps, request.params.id);
      const { key_id } = request.params;
      const before = (await deps.accounts.listKeys(id)).find((key) => key.id === key_id);
      const { results_days, zero_retention } = request.body;
      const set = await deps.accounts.setKeyRetention(id, key_id, {
        ...(results_days === undefined ? {} : { resultsRetentionDays: results_days }),
        ...(zero_retention === undefined ? {} : { zeroRetention: zero_retention }),
      });
      await audited(deps, request, {
        action: 'key.retention.set',
        target: { type: 'api-key', id: key_id },
        before: before ? keyRetentionState(before) : null,
        after: keyRetentionState(set),
      });
      return keyAnswer(set);
    },
  );
}
