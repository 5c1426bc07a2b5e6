import type { Db } from '../../infra/store/database.js';

/** An account's spend budgets as set (micro-dollars; null: none for that period). */
export interface AccountBudget {
  accountId: string;
  dailyMicros: number | null;
  monthlyMicros: number | null;
}

/** Every account with a spend budget set (`account_budgets`), by account id: the operator console's list. */
export async function listAccountBudgets(db: Db): Promise<AccountBudget[]> {
  const rows = await db
    .selectFrom('account_budgets')
    .select(['account_id', 'daily_micros', 'monthly_micros'])
    .where((eb) => eb.or([eb('daily_micros', 'is not', null), eb('monthly_micros', 'is not', null)]))
    .orderBy('account_id')
    .execute();
  return rows.map((row) => ({
    accountId: row.account_id,
    dailyMicros: row.daily_micros === null ? null : Number(row.daily_micros),
    monthlyMicros: row.monthly_micros === null ? null : Number(row.monthly_micros),
  }));
}

/** An API key's spend budgets as set. */
export interface KeyBudget extends AccountBudget {
  keyId: string;
}

/** Every key with a spend budget set (`key_budgets`), of one account or of all, by key id. */
export async function listKeyBudgets(db: Db, accountId?: string): Promise<KeyBudget[]> {
  let query = db
    .selectFrom('key_budgets')
    .select(['key_id', 'account_id', 'daily_micros', 'monthly_micros'])
    .where((eb) => eb.or([eb('daily_micros', 'is not', null), eb('monthly_micros', 'is not', null)]));
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  const rows = await query.orderBy('key_id').execute();
  return rows.map((row) => ({
    keyId: row.key_id,
    accountId: row.account_id,
    dailyMicros: row.daily_micros === null ? null : Number(row.daily_micros),
    monthlyMicros: row.monthly_micros === null ? null : Number(row.monthly_micros),
  }));
}
