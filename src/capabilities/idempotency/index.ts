// The idempotency capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/idempotency/ import from this file only (src/architecture.test.ts holds it).

export type { IdempotencyClaim, IdempotencyRepository } from './idempotency-repository.js';
export {
  CLAIM_LEASE_MS,
  createIdempotencyRepository,
  IdempotencyClaimLostError,
} from './idempotency-repository.js';
