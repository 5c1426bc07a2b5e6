import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ADMIN_TAG,
  type AdminAccount,
  adminAccountChangeSchema,
  adminAccountParamsSchema,
  adminAccountSchema,
  adminAccountsPageSchema,
  adminAccountsQuerySchema,
  adminBudgetBodySchema,
  adminBudgetSchema,
  adminCreateAccountBodySchema,
  adminCreatedAccountSchema,
  adminPasswordBodySchema,
  adminPasswordResetSchema,
  adminSecurity,
  operatorUsageReportSchema,
  usageQuerySchema,
} from '../../base/contract/admin.js';
import { storePageOf } from '../../base/contract/paging.js';
import { Conflict, NotFound } from '../../base/domain/errors.js';
import {
  type DirectoryEntry,
  generateOneTimePassword,
} from '../../capabilities/accounts/account-directory.js';
import { accountOf } from '../http/authentication.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { ADMIN_AUTH_ERRORS, ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';

/** Today's UTC day (YYYY-MM-DD). */
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The console's accounts: list and search, create, tier, disable and enable, password, budgets, usage. */
export async function adminAccountRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { accounts, directory, usage, clock } = deps;

  /** The entries with their images and spend of today and of this month, and their budgets. */
  async function withUsage(entries: DirectoryEntry[]): Promise<AdminAccount[]> {
    if (entries.length === 0) return [];
    const today = dayOf(clock.now());
    const [ofDay, ofMonth, budgets] = await Promise.all([
      usage.accountsReport({ from: today, to: today }),
      usage.accountsReport({ from: `${today.slice(0, 8)}01`, to: today }),
      deps.budgets.list(),
    ]);
    const countsOf = (report: typeof ofDay) => {
      const byAccount = new Map(report.accounts.map((row) => [row.accountId, row]));
      return (id: string) => {
        const own = byAccount.get(id);
        return {
          completed: own?.completed ?? 0,
          failed: own?.failed ?? 0,
          cost_micros: own?.cost_micros ?? 0,
          absorbed_micros: own?.absorbed_micros ?? 0,
        };
      };
    };
    const todayOf = countsOf(ofDay);
    const monthOf = countsOf(ofMonth);
    const budgetOf = new Map(budgets.map((budget) => [budget.accountId, budget]));
    return entries.map((entry) => {
      const budget = budgetOf.get(entry.id);
      return {
        id: entry.id,
        email: entry.email,
        tier: entry.tier,
        disabled: entry.disabled,
        operator: entry.operator,
        password_change_required: entry.passwordChangeRequired,
        created_at: entry.createdAt,
        today: todayOf(entry.id),
        month: monthOf(entry.id),
        budget: budget ? { daily_micros: budget.dailyMicros, monthly_micros: budget.monthlyMicros } : null,
      };
    });
  }

  async function requireEntry(id: string): Promise<DirectoryEntry> {
    const entry = await directory.entry(id);
    if (!entry) throw new NotFound('Account not found');
    return entry;
  }
  const oneAccount = async (id: string) => (await withUsage([await requireEntry(id)]))[0] as AdminAccount;

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
      const found = await directory.search(filter, { offset: (storePageOf(page) - 1) * limit, limit });
      return {
        items: await withUsage(found.items),
        total: found.total,
        page,
        limit,
        total_pages: Math.ceil(found.total / limit),
      };
    },
  );

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
      const created = await accounts.create({
        email,
        ...(tier === undefined ? {} : { tier }),
        ...(password === undefined ? {} : { password }),
      });
      reply.code(201);
      return { account: await oneAccount(created.account.id), api_key: created.apiKey };
    },
  );

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
    async (request) => oneAccount(request.params.id),
  );

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
      await requireEntry(id);
      if (disabled === true && id === accountOf(request).id)
        throw new Conflict('You cannot disable your own account; ask another operator');
      if (tier !== undefined) await accounts.setTier(id, tier);
      if (disabled !== undefined) await (disabled ? accounts.disable(id) : accounts.enable(id));
      return oneAccount(id);
    },
  );

  api.post(
    '/accounts/:id/password',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Reset the password',
        description:
          "Sets the password given, or generates one and answers it this once. Every session of the account ends; at its next website sign-in the session can do nothing but set the person's own password (every other route answers 403 password_change_required until then). API keys are not affected.",
        params: adminAccountParamsSchema,
        body: adminPasswordBodySchema,
        response: {
          200: jsonResponse('The password was reset', adminPasswordResetSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      await requireEntry(id);
      const given = request.body?.password;
      const password = given ?? generateOneTimePassword();
      await accounts.resetPassword(id, password);
      return { password: given === undefined ? password : null };
    },
  );

  api.put(
    '/accounts/:id/budget',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Set spend budgets',
        description:
          "Sets the account's daily and monthly spend budgets (micro-dollars, USD): a number sets one, null removes it, absent leaves it. The next generate request is held to them, on every node (402 budget_exceeded past them).",
        params: adminAccountParamsSchema,
        body: adminBudgetBodySchema,
        response: {
          200: jsonResponse('The budgets as set, and where they stand', adminBudgetSchema),
          ...errorResponses(['invalid_request', ...ADMIN_WRITE_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      await requireEntry(id);
      const { daily_micros, monthly_micros } = request.body;
      const set = await deps.budgets.set(id, {
        ...(daily_micros === undefined ? {} : { dailyMicros: daily_micros }),
        ...(monthly_micros === undefined ? {} : { monthlyMicros: monthly_micros }),
      });
      return {
        daily_micros: set.dailyMicros,
        monthly_micros: set.monthlyMicros,
        status: await deps.budgets.status(id),
      };
    },
  );

  api.get(
    '/accounts/:id/usage',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: "An account's usage",
        description:
          "Images completed and failed per UTC day and model, and what the account's tier policy leaves: the report the account itself reads at GET /api/v1/user/usage, with absorbed_micros (what upstreams billed beyond its quotes' maxima, absorbed by the operator) beside each cost_micros.",
        params: adminAccountParamsSchema,
        querystring: usageQuerySchema,
        response: {
          200: jsonResponse('Usage over the range', operatorUsageReportSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS, 'not_found']),
        },
      },
    },
    async (request) => {
      const entry = await requireEntry(request.params.id);
      return usage.report({ id: entry.id, tier: entry.tier }, request.query);
    },
  );
}
