import type { Db } from '../../infra/store/database.js';

/** An account's own retention (days; null: the tier's or the deployment's applies). */
export interface AccountRetention {
  resultsDays: number | null;
  uploadsDays: number | null;
}

/** An account's own retention periods (migration 0075), read and set by operators. */
export function createAccountRetention(db: Db) {
  return {
    /** The account's retention, or undefined when there is no such account. */
    async get(accountId: string): Promise<AccountRetention | undefined> {
      const row = await db
        .selectFrom('accounts')
        .select(['retention_results_days', 'retention_uploads_days'])
        .where('id', '=', accountId)
        .executeTakeFirst();
      return (
        row && {
          resultsDays: row.retention_results_days ?? null,
          uploadsDays: row.retention_uploads_days ?? null,
        }
      );
    },

    /** Sets what is given (a number of days, or null to remove it); absent fields stay. */
    async set(accountId: string, change: Partial<AccountRetention>): Promise<void> {
      const values = {
        ...(change.resultsDays === undefined ? {} : { retention_results_days: change.resultsDays }),
        ...(change.uploadsDays === undefined ? {} : { retention_uploads_days: change.uploadsDays }),
      };
      if (Object.keys(values).length > 0)
        await db.updateTable('accounts').set(values).where('id', '=', accountId).execute();
    },
  };
}

export type AccountRetentionStore = ReturnType<typeof createAccountRetention>;
