import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ADMIN_TAG,
  adminPoliciesSchema,
  adminSecurity,
  adminUpstreamsSchema,
  adminUsageSchema,
  usageQuerySchema,
} from '../../base/contract/admin.js';
import { TIERS } from '../../base/domain/tiers.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { ADMIN_AUTH_ERRORS, type AdminDeps } from './admin-deps.js';

/** What the console reads about the deployment: usage of every account, policies, upstreams. */
export async function adminInsightRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { usage, directory, policies, providers, capacity, clock } = deps;

  api.get(
    '/usage',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Usage of every account',
        description:
          'Images completed and failed over a range of UTC days (default the last 30, at most 366): per day and model, per model, and per account with its models.',
        querystring: usageQuerySchema,
        response: {
          200: jsonResponse('Usage over the range', adminUsageSchema),
          ...errorResponses(['invalid_request', ...ADMIN_AUTH_ERRORS]),
        },
      },
    },
    async (request) => {
      const report = await usage.accountsReport(request.query);
      const emails = await directory.emailsOf(report.accounts.map((row) => row.accountId));
      const accounts = report.accounts
        .map(({ accountId, ...counts }) => ({
          id: accountId,
          email: emails.get(accountId) ?? null,
          ...counts,
        }))
        .sort((a, b) => b.completed + b.failed - (a.completed + a.failed) || (a.id < b.id ? -1 : 1));
      return { ...report, currency: 'USD' as const, accounts };
    },
  );

  api.get(
    '/policies',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Tier policies and budgets in force',
        description:
          'Each tier with the limits its policy sets (ATELIER_POLICY_FILE; null does not restrict) and how many accounts are on it; every account with a spend budget.',
        response: {
          200: jsonResponse('The policies', adminPoliciesSchema),
          ...errorResponses(ADMIN_AUTH_ERRORS),
        },
      },
    },
    async () => {
      const [counts, budgets, keyBudgets] = await Promise.all([
        directory.countsByTier(),
        deps.budgets.list(),
        deps.budgets.listKeys(),
      ]);
      const emails = await directory.emailsOf([
        ...new Set([...budgets, ...keyBudgets].map((budget) => budget.accountId)),
      ]);
      return {
        budgets: budgets
          .map((budget) => ({
            id: budget.accountId,
            email: emails.get(budget.accountId) ?? '',
            daily_micros: budget.dailyMicros,
            monthly_micros: budget.monthlyMicros,
          }))
          .sort((a, b) => (a.email < b.email ? -1 : 1)),
        key_budgets: keyBudgets
          .map((budget) => ({
            account_id: budget.accountId,
            email: emails.get(budget.accountId) ?? '',
            key_id: budget.keyId,
            daily_micros: budget.dailyMicros,
            monthly_micros: budget.monthlyMicros,
          }))
          .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : a.key_id < b.key_id ? -1 : 1)),
        currency: 'USD' as const,
        tiers: TIERS.map((tier) => {
          const policy = policies[tier];
          return {
            tier,
            policy: policy !== undefined,
            models: policy?.models ?? null,
            images_per_day: policy?.images_per_day ?? null,
            images_per_month: policy?.images_per_month ?? null,
            tasks_in_flight: policy?.tasks_in_flight ?? null,
            accounts: counts.get(tier) ?? 0,
          };
        }),
      };
    },
  );

  api.get(
    '/upstreams',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Live state of the upstreams',
        description:
          "Each provider's keys (the deployment's, how many accounts hold their own), its unfinished tasks (queued, in progress) and its circuit breaker on the node that answers (breakers are per process), and every capacity pool as the store holds it for all nodes: learned limit, calls in flight, tasks waiting, calls and refusals in the last minute, and the hold a Retry-After set.",
        response: {
          200: jsonResponse('The upstreams now', adminUpstreamsSchema),
          ...errorResponses(ADMIN_AUTH_ERRORS),
        },
      },
    },
    async () => {
      const [pools, unfinished, ownKeys, keys] = await Promise.all([
        capacity.states(),
        deps.unfinishedTasks(),
        directory.ownKeyCounts(),
        deps.providerKeys.states(),
      ]);
      // A key of the provider's pool in service (the environment's key is one of its pool's).
      const served = new Set(keys.filter((key) => key.status === 'in_service').map((key) => key.provider));
      return {
        now: clock.now(),
        providers: providers.names().map((name) => {
          const provider = providers.get(name);
          const circuit = provider?.circuit?.();
          const tasks = unfinished.find((row) => row.provider === name);
          return {
            name,
            requires_key: provider?.requiresKey ?? true,
            deployment_key: served.has(name),
            account_keys: ownKeys.get(name) ?? 0,
            queued: tasks?.queued ?? 0,
            in_progress: tasks?.inProgress ?? 0,
            circuit: circuit
              ? {
                  state: circuit.state,
                  consecutive_failures: circuit.consecutiveFailures,
                  probe_in_ms: circuit.msUntilProbe,
                }
              : null,
          };
        }),
        pools: pools.map((pool) => ({
          provider: pool.provider,
          upstream_model: pool.upstreamModel,
          key: pool.key,
          learned_limit: pool.learnedLimit,
          in_flight: pool.inFlight,
          waiting: pool.waiting,
          calls_in_window: pool.callsInWindow,
          refused_in_window: pool.refusedInWindow,
          hold_until: pool.holdUntil,
          updated_at: pool.updatedAt,
        })),
      };
    },
  );
}
