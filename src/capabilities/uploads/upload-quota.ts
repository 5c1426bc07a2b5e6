import { sql } from 'kysely';
import { RateLimited } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import { dayOf, periodsOf } from '../usage/index.js';

/** Uploads and bytes an account may store per UTC day. */
export interface UploadQuotaLimits {
  count: number;
  bytes: number;
}

const mebibytes = (bytes: number) => `${Math.floor(bytes / 1024 / 1024).toLocaleString('en')} MB`;

/**
 * The daily upload quota of each account, kept in `upload_usage` (migration 0017) so every node
 * shares it. Security: without it one account stored 236 MB in 2.8 s, and a full disk takes every
 * account down. Every accepted upload counts, with its bytes, a repeat of an image already stored
 * included (its checks cost the same); results do not (generation quotas bound them).
 */
export function createUploadQuota({
  db,
  clock,
  limits,
}: {
  db: Db;
  clock: Clock;
  limits: UploadQuotaLimits;
}) {
  const refusal = (now: number) =>
    new RateLimited(
      `This account has stored its uploads for today (at most ${limits.count.toLocaleString('en')} uploads and ${mebibytes(limits.bytes)} per UTC day); retry after midnight UTC`,
      Math.max(1000, periodsOf(now).nextDay - now),
    );

  return {
    /**
     * Refuses at once when the account has no room left today, before a body is read or a URL
     * fetched (the caller's own bytes and our bandwidth are not spent on an upload bound to fail).
     */
    async assertRoom(accountId: string): Promise<void> {
      const now = clock.now();
      const used = await db
        .selectFrom('upload_usage')
        .select(['uploads', 'bytes'])
        .where('account_id', '=', accountId)
        .where('day', '=', dayOf(now))
        .executeTakeFirst();
      if (used && (Number(used.uploads) >= limits.count || Number(used.bytes) >= limits.bytes))
        throw refusal(now);
    },

    /**
     * Counts one upload of `bytes` against today's quota, or throws RateLimited when it does not
     * fit. One conditional update: concurrent uploads on any node never pass the quota together.
     * Answers the function that gives the reservation back (an upload not stored after all).
     */
    async reserve(accountId: string, bytes: number): Promise<() => Promise<void>> {
      const now = clock.now();
      const day = dayOf(now);
      await db
        .insertInto('upload_usage')
        .values({ account_id: accountId, day, uploads: 0, bytes: 0 })
        .onConflict((oc) => oc.columns(['account_id', 'day']).doNothing())
        .execute();
      const counted = await db
        .updateTable('upload_usage')
        .set({
          uploads: sql<number>`${sql.ref('uploads')} + 1`,
          bytes: sql<number>`${sql.ref('bytes')} + ${bytes}`,
        })
        .where('account_id', '=', accountId)
        .where('day', '=', day)
        .where(sql.ref('uploads'), '<', limits.count)
        .where(sql<number>`${sql.ref('bytes')} + ${bytes}`, '<=', limits.bytes)
        .executeTakeFirst();
      if (Number(counted.numUpdatedRows) !== 1) throw refusal(now);
      return async () => {
        await db
          .updateTable('upload_usage')
          .set({
            uploads: sql<number>`${sql.ref('uploads')} - 1`,
            bytes: sql<number>`${sql.ref('bytes')} - ${bytes}`,
          })
          .where('account_id', '=', accountId)
          .where('day', '=', day)
          .execute();
      };
    },
  };
}

export type UploadQuota = ReturnType<typeof createUploadQuota>;
