import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_TAG, adminPoliciesSchema, adminSecurity } from '../../base/contract/admin.js';
import { TIERS } from '../../base/domain/tiers.js';
import type { AccountBudget, KeyBudget, TierPolicies } from '../../capabilities/usage/index.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { ADMIN_AUTH_ERRORS, type AdminDeps } from './admin-deps.js';
import { versionHead } from './policy-edit-routes.js';

/** GET /policies: each tier's policy and how many accounts are on it, and every budget set. */
export async function adminPolicyRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/policies',
    {
      schema: {
        tags: [ADMIN_TAG],
        security: adminSecurity,
        summary: 'Tier policies and budgets in force',
        description:
          'Each tier with the limits its policy sets (the version in force, `in_force`: seeded from ATELIER_POLICY_FILE, edited with PUT /policies or PATCH /policies/tiers/{tier}; null does not restrict) and how many accounts are on it; every account with a spend budget.',
        response: {
          200: jsonResponse('The policies', adminPoliciesSchema),
          ...errorResponses(ADMIN_AUTH_ERRORS),
        },
      },
    },
    async () => {
      const { directory } = deps;
      const inForce = deps.policies.current();
      const [counts, budgets, keyBudgets] = await Promise.all([
        directory.countsByTier(),
        deps.budgets.list(),
        deps.budgets.listKeys(),
      ]);
      const emails = await directory.emailsOf([
        ...new Set([...budgets, ...keyBudgets].map((budget) => budget.accountId)),
      ]);
      return {
        ...budgetsAnswer(budgets, keyBudgets, emails),
        currency: 'USD' as const,
        tiers: tiersAnswer(inForce.tiers, counts),
        in_force: versionHead(inForce),
      };
    },
  );
}

/** The accounts' budgets by e-mail, and the keys' by e-mail and key. */
function budgetsAnswer(budgets: AccountBudget[], keyBudgets: KeyBudget[], emails: Map<string, string>) {
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
  };
}

/** Each tier with its policy's limits (null: not restricted) and its number of accounts. */
function tiersAnswer(policies: TierPolicies, counts: Map<string, number>) {
  return TIERS.map((tier) => {
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
  });
}
