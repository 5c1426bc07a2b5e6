// The usage capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/usage/ import from this file only (src/architecture.test.ts holds it).

export type { AccountBudget, KeyBudget } from './budget-list.js';
export { listAccountBudgets, listKeyBudgets } from './budget-list.js';
export type { Budgets } from './budgets.js';
export { createBudgets } from './budgets.js';
export type { TierAdmission } from './tier-admission.js';
export { createTierAdmission } from './tier-admission.js';
export type { TierPolicies } from './tier-policies.js';
export { loadTierPolicies } from './tier-policies.js';
export { dayOf, periodsOf } from './usage-days.js';
export type { UsageRepository } from './usage-repository.js';
export { createUsageRepository } from './usage-repository.js';
export type { UsageService } from './usage-service.js';
export { createUsageService } from './usage-service.js';
