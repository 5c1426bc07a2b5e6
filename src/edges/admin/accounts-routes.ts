import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ADMIN_TAG,
  adminAccountChangeSchema,
  adminAccountParamsSchema,
  adminAccountSchema,
  adminAccountsPageSchema,
  adminAccountsQuerySchema,
  adminCreateAccountBodySchema,
  adminCreatedAccountSchema,
  adminSecurity,
} from '../../base/contract/admin.js';
import { storePageOf } from '../../base/contract/paging.js';
import { Conflict } from '../../base/domain/errors.js';
import { accountState } from '../../capabilities/audit/index.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';
import { oneAccount, requireEntry, withUsage } from './account-answers.js';
import { ADMIN_AUTH_ERRORS, ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { audited } from './audit-trail.js';

/**
 * The console's accounts: list and search, create, one, tier, disable and enable. (An account's
 * password, budgets and usage are resources of their own: account-*-routes.ts.)
 */
export async function adminAccountRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  listAccounts(api, deps);
  createAccount(api, deps);
  getAccount(api, deps);
  changeAccount(api, deps);
}

/** GET /accounts: a page of accounts, searched. */
function listAccounts(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/accounts',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'List and search accounts',
        description:
          'Accounts oldest first, narrowed by e-mail text, tier, disabled and operator; each with the images that ended today and this month (UTC) and what they cost, and its spend budgets.',
        querystring: adminAccountsQuerySchema,
        response: {
          200: jsonResponse('A page of accounts', adminAccountsPageSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS]),
        },
      },
    },
    async (request) => {
      const { page, limit, ...filter } = request.query;
      const found = await deps.directory.search(filter, { offset: (storePageOf(page) - 1) * limit, limit });
      return {
        items: await withUsage(deps, found.items),
        total: found.total,
        page,
        limit,
        total_pages: Math.ceil(found.total / limit),
      };
    },
  );
}

/** POST /accounts: a new account and its first API key, shown once. */
function createAccount(api: ZodApp, deps: AdminDeps) {
  api.post(
    '/accounts',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Create an account',
        description:
          'Creates an account with one full API key, answered this once. With a password the account can also sign in to the website.',
        body: adminCreateAccountBodySchema,
        response: {
          201: jsonResponse('The account and its first API key', adminCreatedAccountSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const { email, tier, password } = request.body;
      const created = await deps.accounts.create({
        email,
        ...(tier === undefined ? {} : { tier }),
        ...(password === undefined ? {} : { password }),
      });
      const id = created.account.id;
      const after = accountState(await requireEntry(deps, id));
      await audited(deps, request, {
        action: 'account.create',
        target: { type: 'account', id },
        before: null,
        after,
      });
      reply.code(201);
      return { account: await oneAccount(deps, id), api_key: created.apiKey };
    },
  );
}

/** GET /accounts/:id: one account. */
function getAccount(api: ZodApp, deps: AdminDeps) {
  api.get(
    '/accounts/:id',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'One account',
        params: adminAccountParamsSchema,
        response: {
          200: jsonResponse('The account', adminAccountSchema),
          ...errorResponses([...ADMIN_AUTH_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => oneAccount(deps, request.params.id),
  );
}

/** PATCH /accounts/:id: a new tier, disabled or enabled. */
function changeAccount(api: ZodApp, deps: AdminDeps) {
  api.patch(
    '/accounts/:id',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Change tier, disable or enable',
        description:
          "A new tier applies to the account's next request. Disabling refuses its API keys and ends its sessions at once, on every node; enabling lets its keys work again (it signs in anew). An operator cannot disable their own account (409 conflict).",
        params: adminAccountParamsSchema,
        body: adminAccountChangeSchema,
        response: {
          200: jsonResponse('The account as changed', adminAccountSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found', 'conflict']),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { tier, disabled } = request.body;
      const { accounts } = deps;
      const before = accountState(await requireEntry(deps, id));
      if (disabled === true && id === accountOf(request).id)
        throw new Conflict('You cannot disable your own account; ask another operator');
      if (tier !== undefined) await accounts.setTier(id, tier);
      if (disabled !== undefined) await (disabled ? accounts.disable(id) : accounts.enable(id));
      const after = accountState(await requireEntry(deps, id));
      await audited(deps, request, {
        action: 'account.update',
        target: { type: 'account', id },
        before,
        after,
      });
      return oneAccount(deps, id);
    },
  );
}
