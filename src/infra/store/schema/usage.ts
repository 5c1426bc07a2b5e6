/** The tables of usage (src/capabilities/usage): daily counts and costs, and the budgets of accounts and keys. */

/** Images that reached a final state, per account, UTC day (`YYYY-MM-DD`) and catalog model. */
export interface UsageDailyTable {
  account_id: string;
  day: string;
  model: string;
  completed: number;
  failed: number;
  /** What the day's completed images cost, in micro-dollars (migration 0030). */
  cost_micros: number;
  /** What upstreams billed beyond quotes' maxima on them, absorbed by the operator (migration 0061). */
  absorbed_micros: number;
}

/** Usage of erased accounts, as anonymous totals per UTC day and model (migration 0078). */
export type UsageErasedTable = Omit<UsageDailyTable, 'account_id'>;

/** An account's budgets in micro-dollars per UTC day and month; null = none (owned by src/capabilities/usage). */
export interface AccountBudgetsTable {
  account_id: string;
  daily_micros: number | null;
  monthly_micros: number | null;
  updated_at: number;
}

/** An API key's budgets, as an account's (migration 0031; owned by src/capabilities/usage). */
export type KeyBudgetsTable = AccountBudgetsTable & { key_id: string };

/** The tables above, as the database's schema (`Database`) lists them. */
export interface UsageTables {
  usage_daily: UsageDailyTable;
  usage_erased: UsageErasedTable;
  account_budgets: AccountBudgetsTable;
  key_budgets: KeyBudgetsTable;
  policy_versions: PolicyVersionsTable;
}

/** One version of the tier policy document (migration 0065; owned by src/capabilities/usage). */
export interface PolicyVersionsTable {
  /** 1, 2, …: the highest is in force. */
  version: number;
  /** The document as ATELIER_POLICY_FILE holds it: `{ "tiers": { … } }`. */
  document_json: string;
  /** Who wrote it: a start (seeded or imported from ATELIER_POLICY_FILE), the admin API, the console. */
  source: 'file' | 'api' | 'console';
  /** The SHA-256 (hex) of the file's bytes, for a version from the file; null otherwise. */
  file_sha256: string | null;
  created_at: number;
  /** The operator's e-mail, or `file:<path>` for a start. */
  created_by: string;
}
