import { createAlertsService } from './capabilities/alerts/index.js';
import { routeOfTask, routeOutcomes } from './capabilities/tasks/index.js';
import type { Budgets } from './capabilities/usage/index.js';
import type { CoreResources } from './core-resources.js';

/**
 * Alerts: rules, detection and their delivery worker. Detection reads the usage capability's budget
 * status and the tasks' route outcomes, joined here (alerts import neither).
 */
export function buildAlerts(resources: CoreResources, parts: { budgets: Budgets }) {
  const { db, clock, ids, secrets, fetcher, processOwner, logger, config, timing } = resources;
  return createAlertsService({
    db,
    clock,
    ids,
    secrets,
    fetcher,
    processOwner,
    logger: logger.child({ component: 'alerts' }),
    reads: {
      budgetStatus: (accountId) => parts.budgets.status(accountId),
      routeOf: (taskId) => routeOfTask(db, taskId),
      routeOutcomes: (route, since) => routeOutcomes(db, route, since),
    },
    options: {
      retryScheduleMs: config.webhookRetryScheduleMs,
      attemptTimeoutMs: timing.webhookAttemptTimeoutMs,
      idlePollMs: timing.idlePollMs,
    },
  });
}
