import { SPEND_CONFIRMATION_DEFAULTS, type SpendConfirmation } from '../../base/contract/accounts.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';

/**
 * An account's spend confirmation (issue 46, docs/mcp.md "Spend confirmation"): above which price MCP
 * tools that spend ask the person first, for API keys and for sign-in grants. Only the person
 * changes it (the website account page): an agent holding a key cannot switch its own check off.
 */
export function createSpendConfirmations({ db, clock }: { db: Db; clock: Clock }) {
  return {
    /** The account's setting, or the defaults when it set none. */
    async of(accountId: string): Promise<SpendConfirmation> {
      const row = await db
        .selectFrom('spend_confirmations')
        .select(['above_micros', 'api_keys', 'sign_in'])
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (!row) return { ...SPEND_CONFIRMATION_DEFAULTS };
      return {
        above_micros: Number(row.above_micros),
        api_keys: Number(row.api_keys) === 1,
        sign_in: Number(row.sign_in) === 1,
      };
    },

    /** Sets the account's setting (whole: one threshold and both switches). */
    async set(accountId: string, setting: SpendConfirmation): Promise<SpendConfirmation> {
      const values = {
        above_micros: setting.above_micros,
        api_keys: setting.api_keys ? 1 : 0,
        sign_in: setting.sign_in ? 1 : 0,
        updated_at: clock.now(),
      };
      await db
        .insertInto('spend_confirmations')
        .values({ account_id: accountId, ...values })
        .onConflict((conflict) => conflict.column('account_id').doUpdateSet(values))
        .execute();
      return { above_micros: setting.above_micros, api_keys: setting.api_keys, sign_in: setting.sign_in };
    },
  };
}

export type SpendConfirmations = ReturnType<typeof createSpendConfirmations>;
