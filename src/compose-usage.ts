import { type AuditLog, tierPolicyState } from './capabilities/audit/index.js';
import type { Catalog } from './capabilities/catalog/index.js';
import {
  createBudgets,
  createLivePolicies,
  createTierAdmission,
  createUsageRepository,
  createUsageService,
  type LivePolicies,
  listAccountBudgets,
  listKeyBudgets,
  readPolicyFile,
} from './capabilities/usage/index.js';
import type { CoreResources } from './core-resources.js';
import { generationModel } from './use-cases/generations/index.js';

/** Images per account, day and model; the tier policies' admission; spend budgets. */
export function buildUsage({ db, clock }: CoreResources, catalog: Catalog) {
  // Usage is counted in the transaction of each task's final write (exactly once per task).
  const usageRepository = createUsageRepository({ db, modelOf: generationModel });
  const tierPolicies = createLivePolicies({
    db,
    clock,
    modelIds: () => catalog.models.map((model) => model.id),
  });
  const admission = createTierAdmission({ policies: tierPolicies.policies, clock });
  const budgets = {
    ...createBudgets({ db, clock }),
    /** Every account's budget (the operator console). */
    list: () => listAccountBudgets(db),
    /** The budgets of API keys, of one account or all (the operator console). */
    listKeys: (accountId?: string) => listKeyBudgets(db, accountId),
  };
  return {
    usageRepository,
    admission,
    /** Images per account, day and model, and the tier policies' allowance. */
    usage: createUsageService({ db, usage: usageRepository, admission, budgets, clock }),
    /** Spend budgets per account and key (CLI `accounts set-budget`, the operator console). */
    budgets,
    /** The tier policies in force, from the store (seeded from ATELIER_POLICY_FILE; edited by operators). */
    tierPolicies,
  };
}

/**
 * At a start: validates ATELIER_POLICY_FILE (a bad file stops the start, as ever), seeds the store
 * with it or imports it when it changed (recorded in the audit log and the log), then re-reads the
 * version in force every ATELIER_CONFIG_REFRESH_MS.
 */
export async function startTierPolicies(
  { config, logger, catalog }: Pick<CoreResources, 'config' | 'logger'> & { catalog: Catalog },
  tierPolicies: LivePolicies,
  audit: Pick<AuditLog, 'record'>,
): Promise<void> {
  const path = config.policyPath;
  const file = path
    ? readPolicyFile(
        path,
        catalog.models.map((model) => model.id),
      )
    : undefined;
  const label = `file:${path ?? '(no ATELIER_POLICY_FILE)'}`;
  const change = await tierPolicies.seed(file, label);
  // Version 1 of "no policies" (a first start without the file) changes nothing: not recorded.
  if (change && file) {
    const { before, after } = change;
    logger.info(
      { version: after.version, file: path ?? null, sha256: after.fileSha256 },
      before
        ? 'tier policies: ATELIER_POLICY_FILE changed; imported as a new version'
        : 'tier policies: seeded',
    );
    await audit.record(
      { label, accountId: null, source: 'file', requestId: null },
      {
        action: 'policy.import',
        target: { type: 'tier-policy', id: 'tiers' },
        before: before ? tierPolicyState(before) : null,
        after: tierPolicyState(after),
      },
    );
  }
  tierPolicies.start(config.configRefreshMs, (error) =>
    logger.warn({ err: error }, 'tier policies: could not re-read the version in force'),
  );
}
