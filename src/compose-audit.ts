import { createAuditLog } from './capabilities/audit/index.js';
import type { CoreResources } from './core-resources.js';

/** The audit log: every change an operator (admin API, console) or the CLI made. */
export function buildAudit(resources: CoreResources) {
  return createAuditLog({ db: resources.db, clock: resources.clock });
}
