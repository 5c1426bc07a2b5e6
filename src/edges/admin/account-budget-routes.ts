import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ADMIN_TAG,
  adminAccountParamsSchema,
  adminBudgetBodySchema,
  adminBudgetSchema,
  adminSecurity,
} from '../../base/contract/admin.js';
import { budgetState } from '../../capabilities/audit/index.js';
import { errorResponses, jsonResponse } from '../http/route-responses.js';
import { requireEntry } from './account-answers.js';
import { ADMIN_WRITE_ERRORS, type AdminDeps } from './admin-deps.js';
import { audited } from './audit-trail.js';

/** PUT /accounts/:id/budget: an account's daily and monthly spend budgets. */
export async function adminAccountBudgetRoutes(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  app.withTypeProvider<ZodTypeProvider>().put(
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
      await requireEntry(deps, id);
      const { daily_micros, monthly_micros } = request.body;
      const before = budgetState(await deps.budgets.get(id));
      const set = await deps.budgets.set(id, {
        ...(daily_micros === undefined ? {} : { dailyMicros: daily_micros }),
        ...(monthly_micros === undefined ? {} : { monthlyMicros: monthly_micros }),
      });
      const target = { type: 'account' as const, id };
      await audited(deps, request, { action: 'budget.set', target, before, after: budgetState(set) });
      return {
        daily_micros: set.dailyMicros,
        monthly_micros: set.monthlyMicros,
        status: await deps.budgets.status(id),
      };
    },
  );
}
