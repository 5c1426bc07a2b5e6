import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';

/**
 * The creation view's state kept per account (the website's own table): when its finished cards
 * were last cleared. Server-side rather than in the browser, so a cleared card stays cleared after
 * a reload, in another tab and on another device.
 */
export function createCreationViews({ db, clock }: { db: Db; clock: Clock }) {
  return {
    /** When the account last cleared its finished cards, or null if never. */
    async clearedAt(accountId: string): Promise<number | null> {
      const row = await db
        .selectFrom('creation_views')
        .select('cleared_at')
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return row ? Number(row.cleared_at) : null;
    },

    /** Clears every card final by now; returns that instant. */
    async clear(accountId: string): Promise<number> {
      const now = clock.now();
      await db
        .insertInto('creation_views')
        .values({ account_id: accountId, cleared_at: now })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ cleared_at: now }))
        .execute();
      return now;
    },
  };
}

export type CreationViews = ReturnType<typeof createCreationViews>;
