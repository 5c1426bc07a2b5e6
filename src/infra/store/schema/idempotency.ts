/** The tables of Idempotency-Key claims (src/capabilities/idempotency; migrations 0003, 0007, 0016). */

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  state: 'in_progress' | 'done';
  status_code: number | null;
  response_body: string | null;
  created_at: number;
  /** The process working on an in-progress key (see jobs/process-owner); kept once done. */
  owner: string | null;
  /** When an in-progress claim runs out unless renewed; null once done. */
  expires_at: number | null;
}

/** Idempotency records of an account created in one hour (`hour`: its start, epoch ms); migration 0016. */
export interface IdempotencyUsageTable {
  account_id: string;
  hour: number;
  records: number;
}

/** The tables above, as the database's schema (`Database`) lists them. */
export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
  idempotency_usage: IdempotencyUsageTable;
}
