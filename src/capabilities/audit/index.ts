// The audit capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/audit/ import from this file only (src/architecture.test.ts holds it).

export type { AuditActor, AuditChange, AuditEvent, AuditFilter, AuditLog } from './audit-log.js';
export { createAuditLog } from './audit-log.js';
export {
  accountState,
  apiKeyState,
  budgetState,
  keyRetentionState,
  providerKeyState,
  tierPolicyState,
} from './audit-states.js';
export { REDACTED, redact } from './redact.js';
