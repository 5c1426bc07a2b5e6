// The usage capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/usage/ import from this file only (src/architecture.test.ts holds it).

export type { AccountBudget, KeyBudget } from './budget-list.js';
export { listAccountBudgets, listKeyBudgets } from './budget-list.js';
export type { Budgets } from './budgets.js';
export { createBudgets } from './budgets.js';
export type { LivePolicies, PolicyAuthor, PolicyChange, TierPolicyPatch } from './live-policies.js';
export { createLivePolicies } from './live-policies.js';
export type { PolicySource, PolicyVersion } from './policy-versions.js';
export type { TierAdmission } from './tier-admission.js';
export { createTierAdmission } from './tier-admission.js';
export type { PolicyFile, TierPolicies, TierPolicy } from './tier-policies.js';
export { loadTierPolicies, readPolicyFile } from './tier-policies.js';
export { dayOf, periodsOf } from './usage-days.js';
export type { UsageRepository } from './usage-repository.js';
export { createUsageRepository } from './usage-repository.js';
export type { UsageService } from './usage-service.js';
export { createUsageService } from './usage-service.js';
