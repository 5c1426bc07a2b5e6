// The data lifecycle use case's face: everything other folders may use from it, and nothing else.
// Files outside src/use-cases/lifecycle/ import from this file only (src/architecture.test.ts holds it).

export {
  type EraseDeps,
  type EraseOutcome,
  eraseAccount,
  finishErasures,
} from './account-erase.js';
export {
  type AccountRetention,
  type AccountRetentionStore,
  createAccountRetention,
  type EffectiveDays,
  type EffectiveRetention,
  type RetentionSource,
} from './account-retention.js';
export {
  type ExpiryDeps,
  expireOldData,
  type RetentionDays,
  type RetentionSources,
  shortestDays,
} from './expiry.js';
export { purgeRemovedWorks, purgeWork } from './work-purge.js';
export {
  createZeroRetention,
  ZERO_RETENTION_MS,
  type ZeroRetention,
  type ZeroRetentionDeps,
} from './zero-retention.js';
