import type { Catalog } from './capabilities/catalog/index.js';
import {
  createBudgets,
  createTierAdmission,
  createUsageRepository,
  createUsageService,
  listAccountBudgets,
  listKeyBudgets,
  loadTierPolicies,
} from './capabilities/usage/index.js';
import type { CoreResources } from './core-resources.js';
import { generationModel } from './use-cases/generations/index.js';

/** Images per account, day and model; the tier policies' admission; spend budgets. */
export function buildUsage({ db, clock, config }: CoreResources, catalog: Catalog) {
  // Usage is counted in the transaction of each task's final write (exactly once per task).
  const usageRepository = createUsageRepository({ db, modelOf: generationModel });
  const tierPolicies = loadTierPolicies(
    config.policyPath,
    catalog.models.map((model) => model.id),
  );
  const admission = createTierAdmission({ policies: tierPolicies, clock });
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
    /** The tier policies in force (ATELIER_POLICY_FILE), as the operator console shows them. */
    tierPolicies,
  };
}
