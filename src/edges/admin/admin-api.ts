import type { FastifyInstance } from 'fastify';

export { ADMIN_PREFIX } from '../../base/contract/admin.js';

import { accountOf, MISSING_CREDENTIALS, requireAccount } from '../http/authentication.js';
import { ApiError } from '../http/errors.js';
import { adminAccountBudgetRoutes } from './account-budget-routes.js';
import { adminAccountDataRoutes } from './account-data-routes.js';
import { adminAccountPasswordRoutes } from './account-password-routes.js';
import { adminAccountRetentionRoutes } from './account-retention-routes.js';
import { adminAccountUsageRoutes } from './account-usage-routes.js';
import { adminAccountRoutes } from './accounts-routes.js';
import { type AdminDeps, NOT_AN_OPERATOR } from './admin-deps.js';
import { adminAlertRoutes } from './alerts-routes.js';
import { adminAuditRoutes } from './audit-routes.js';
import { adminCatalogRoutes } from './catalog-routes.js';
import { adminKeyRoutes } from './keys-routes.js';
import { adminPolicyRoutes } from './policies-routes.js';
import { adminPolicyEditRoutes } from './policy-edit-routes.js';
import { adminProviderKeyRoutes } from './provider-keys-routes.js';
import { adminQueueRoutes } from './queue-routes.js';
import { adminTaskRoutes } from './tasks-routes.js';
import { adminUpstreamRoutes } from './upstreams-routes.js';
import { adminUsageRoutes } from './usage-routes.js';

/**
 * The operator console's API (register under `/api/admin/v1`): every route needs an operator's
 * API key or website session; anyone else is refused with 403 `forbidden` before any route runs.
 */
export async function adminApi(app: FastifyInstance, { deps }: { deps: AdminDeps }) {
  app.addHook('onRequest', requireAccount(deps.resolvers, MISSING_CREDENTIALS.keyOrOperatorSession));
  app.addHook('onRequest', async (request) => {
    // Read at each request, not kept: an operator the CLI demotes loses the console at once.
    if (!(await deps.isOperator(accountOf(request).id))) throw new ApiError('forbidden', NOT_AN_OPERATOR);
  });
  // Accounts, keys and one-time passwords: never kept by a shared cache.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  // One resource each, in the order the document lists them.
  for (const routes of [
    adminAccountRoutes,
    adminAccountPasswordRoutes,
    adminAccountBudgetRoutes,
    adminAccountRetentionRoutes,
    adminAccountDataRoutes,
    adminAccountUsageRoutes,
    adminKeyRoutes,
    adminUsageRoutes,
    adminPolicyRoutes,
    adminPolicyEditRoutes,
    adminUpstreamRoutes,
    adminTaskRoutes,
  ])
    await app.register(routes, { deps });
  await app.register(adminProviderKeyRoutes, { deps });
  await app.register(adminAuditRoutes, { deps });
  await app.register(adminQueueRoutes, { deps });
  await app.register(adminAlertRoutes, { deps });
  await app.register(adminCatalogRoutes, { deps });
}
