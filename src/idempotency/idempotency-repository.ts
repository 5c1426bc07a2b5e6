import type { Clock } from '../platform/clock.js';
import type { Db } from '../store/database.js';
import type { IdempotencyKeysTable } from '../store/schema.js';

/** Keys are remembered this long (then the same key starts afresh). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim older than this whose request never finished (a crashed process) may be taken over. */
export const ABANDONED_CLAIM_MS = 10 * 60 * 1000;

export type ClaimResult = { kind: 'claimed' } | { kind: 'existing'; row: IdempotencyKeysTable };

/** Store queries for Idempotency-Key records, scoped per account. */
export function createIdempotencyRepository({ db, clock }: { db: Db; clock: Clock }) {
  return {
    /**
     * Claims `key` for a request with `requestHash`. The primary key makes the claim atomic: of two
     * concurrent requests exactly one inserts; the other sees the existing record.
     */
    async claim(accountId: string, key: string, requestHash: string): Promise<ClaimResult> {
      const now = clock.now();
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({
          account_id: accountId,
          key,
          request_hash: requestHash,
          state: 'in_progress',
          status_code: null,
          response_body: null,
          created_at: now,
        })
        .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'claimed' };
      const row = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      const age = now - Number(row.created_at);
      const expired = age > IDEMPOTENCY_TTL_MS;
      const abandoned = row.state === 'in_progress' && age > ABANDONED_CLAIM_MS;
      if (expired || abandoned) {
        // Take the stale record over, conditionally, so two takers cannot both win.
        const taken = await db
          .updateTable('idempotency_keys')
          .set({
            request_hash: requestHash,
            state: 'in_progress',
            status_code: null,
            response_body: null,
            created_at: now,
          })
          .where('account_id', '=', accountId)
          .where('key', '=', key)
          .where('created_at', '=', row.created_at)
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) === 1) return { kind: 'claimed' };
      }
      return { kind: 'existing', row };
    },

    /** Records the response of a claimed key, to be replayed. */
    async complete(accountId: string, key: string, statusCode: number, body: string): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', status_code: statusCode, response_body: body })
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .execute();
    },

    /** Forgets a claim whose request failed on our side, so the caller may retry with the same key. */
    async release(accountId: string, key: string): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .execute();
    },

    /** Deletes records past their lifetime. */
    async purgeExpired(): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where('created_at', '<', clock.now() - IDEMPOTENCY_TTL_MS)
        .execute();
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;
