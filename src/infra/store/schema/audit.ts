/** The audit log's table (src/capabilities/audit; migration 0063). */

/** One change an operator or the CLI made; never updated, never deleted. */
export interface AuditEventsTable {
  id: string;
  at: number;
  /** The operator's e-mail, or `cli:<OS user>`. */
  actor: string;
  actor_account_id: string | null;
  source: 'admin-api' | 'website' | 'cli' | 'file';
  /** One of AUDIT_ACTIONS (src/base/contract/admin-audit.ts). */
  action: string;
  target_type:
    | 'account'
    | 'api-key'
    | 'provider-key'
    | 'tier-policy'
    | 'task'
    | 'route'
    | 'alert-rule'
    | 'catalog'
    | 'catalog-route';
  target_id: string;
  /** JSON, secrets redacted; null when there was no state before (or none after). */
  before_json: string | null;
  after_json: string | null;
  request_id: string | null;
}

export interface AuditTables {
  audit_events: AuditEventsTable;
}
