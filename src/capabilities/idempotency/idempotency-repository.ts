import { type Kysely, sql, type Transaction } from 'kysely';
import { RateLimited } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { ProcessOwner } from '../../infra/jobs/process-owner.js';
import type { Db } from '../../infra/store/database.js';
import type { IdempotencyKeysTable } from '../../infra/store/schema/idempotency.js';
import type { Database } from '../../infra/store/schema.js';

/** Keys are remembered this long (then the same key starts afresh). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-progress claim runs out this long after its last renewal; the request renews it while it runs. */
export const CLAIM_LEASE_MS = 30 * 1000;
/** Records written before claims named their holder: abandoned after this long (the former rule). */
const UNOWNED_CLAIM_MS = 10 * 60 * 1000;
/** Records are counted per account and hour of creation (`idempotency_usage`). */
const HOUR_MS = 60 * 60 * 1000;
const hourOf = (at: number) => Math.floor(at / HOUR_MS) * HOUR_MS;
/** The oldest hour whose records may still be live at `now` (counted whole: a slight overcount). */
const oldestLiveHour = (now: number) => hourOf(now - IDEMPOTENCY_TTL_MS);

/** A key this process claimed for one request: only its holder may record or release it. */
export interface IdempotencyClaim {
  accountId: string;
  key: string;
  owner: string;
}

export type ClaimResult =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  | { kind: 'existing'; row: IdempotencyKeysTable };

/** The claim was taken over (its holder looked dead, or its lease ran out): this request must not commit. */
export class IdempotencyClaimLostError extends Error {
  constructor(key: string) {
    super(`the claim on Idempotency-Key ${JSON.stringify(key)} was taken over`);
    this.name = 'IdempotencyClaimLostError';
  }
}

type Executor = Kysely<Database> | Transaction<Database>;

const done = (statusCode: number, body: string) =>
  ({ state: 'done', status_code: statusCode, response_body: body, expires_at: null }) as const;

/** What the records are kept with: the store, the clock, this process, and an account's cap. */
interface Records {
  db: Db;
  clock: Clock;
  owner: ProcessOwner;
  /**
   * Records an account may hold (kept answers and claims in progress, last 24 h). Security: keys
   * cost a row each for a day; without a cap one account wrote ~2,000 a second.
   */
  maxRecordsPerAccount: number;
}

/**
 * Store queries for Idempotency-Key records, scoped per account. An in-progress record is a lease:
 * it names its holder (`owner`) and runs out (`expires_at`) unless renewed, so a key whose request
 * died is free again — at once when the holder is a dead process on this host, else when the lease
 * expires. Every write of a claimed record is fenced by its owner, so a request whose claim was
 * taken over can never record (or commit a generation) over the new holder's.
 */
export function createIdempotencyRepository({
  db,
  clock,
  owner,
  maxRecordsPerAccount = Number.POSITIVE_INFINITY,
}: {
  db: Db;
  clock: Clock;
  owner: ProcessOwner;
  /**
   * Records an account may hold (kept answers and claims in progress, last 24 h). Security: keys
   * cost a row each for a day; without a cap one account wrote ~2,000 a second.
   */
  maxRecordsPerAccount?: number;
}) {
  const records: Records = { db, clock, owner, maxRecordsPerAccount };
  return {
    /**
     * Claims `key` for a request with `requestHash`. The primary key makes the claim atomic: of two
     * concurrent requests exactly one inserts; the other sees the existing record.
     */
    claim: (accountId: string, key: string, requestHash: string): Promise<ClaimResult> =>
      claimKey(records, accountId, key, requestHash),

    /** Extends a claim's lease; false when it is no longer held (recorded, released or taken over). */
    async renew(claim: IdempotencyClaim): Promise<boolean> {
      const result = await held(claim, db)
        .set({ expires_at: clock.now() + CLAIM_LEASE_MS })
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Records the response of a claimed key, to be replayed; a no-op once the claim is not held. */
    async complete(claim: IdempotencyClaim, statusCode: number, body: string): Promise<void> {
      await held(claim, db).set(done(statusCode, body)).execute();
    },

    /**
     * Records the response inside the transaction that commits what the request produced, so the
     * two are durable together: a retry after any crash replays exactly this. Throws
     * IdempotencyClaimLostError (rolling the transaction back) when the claim is no longer held.
     */
    async recordIn(trx: Executor, claim: IdempotencyClaim, statusCode: number, body: string): Promise<void> {
      const result = await held(claim, trx).set(done(statusCode, body)).executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) throw new IdempotencyClaimLostError(claim.key);
    },

    /** Forgets a record this holder made, in a transaction (its result was undone: the key is free). */
    async forgetIn(trx: Executor, claim: IdempotencyClaim): Promise<void> {
      await deleteHeld(claim, trx, false);
    },

    /**
     * Frees a claim whose answer is not kept — our failure (5xx), a quota's 429, a refusal (4xx) —
     * so the caller may send the key again.
     */
    async release(claim: IdempotencyClaim): Promise<void> {
      await db.transaction().execute((trx) => deleteHeld(claim, trx, true));
    },

    /** Deletes records past their lifetime, and the counts of hours no record can be live in. */
    async purgeExpired(): Promise<void> {
      const now = clock.now();
      await db
        .deleteFrom('idempotency_keys')
        .where('created_at', '<', now - IDEMPOTENCY_TTL_MS)
        .execute();
      await db.deleteFrom('idempotency_usage').where('hour', '<', oldestLiveHour(now)).execute();
    },
  };
}

/** The columns of a claim this process makes now. */
function freshClaim(records: Records, requestHash: string, now: number) {
  return {
    request_hash: requestHash,
    state: 'in_progress' as const,
    status_code: null,
    response_body: null,
    created_at: now,
    owner: records.owner.id,
    expires_at: now + CLAIM_LEASE_MS,
  };
}

/** See `claim` on the repository: insert, else take a stale record over, else the existing one. */
async function claimKey(
  records: Records,
  accountId: string,
  key: string,
  requestHash: string,
): Promise<ClaimResult> {
  const { db } = records;
  const now = records.clock.now();
  const claim: IdempotencyClaim = { accountId, key, owner: records.owner.id };
  const fresh = freshClaim(records, requestHash, now);
  // An account at its cap is refused a new key by reads alone (no write, no transaction); a
  // key it already holds goes on to its replay…
  await assertUnderCap(records, db, accountId, now, 'before it').catch(async (error: unknown) => {
    if (!(error instanceof RateLimited)) throw error;
    const held = await db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!held) throw error;
  });
  // …and a new record is counted with its insert; past the cap both are rolled back (a race).
  const inserted = await db.transaction().execute(async (trx) => {
    const result = await trx
      .insertInto('idempotency_keys')
      .values({ account_id: accountId, key, ...fresh })
      .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
    await countRecords(trx, accountId, now, 1);
    await assertUnderCap(records, trx, accountId, now, 'with this claim');
    return true;
  });
  if (inserted) return { kind: 'claimed', claim };
  const row = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
  if (isStale(records.owner, row, now) && (await takeOver(db, row, fresh, now)))
    return { kind: 'claimed', claim };
  return { kind: 'existing', row };
}

/**
 * Takes a stale record over, only as it was read, so two takers (or a renewal) cannot both win. It
 * is counted again in its new hour (one record either way: no cap check). Whether this one won.
 */
async function takeOver(
  db: Db,
  row: IdempotencyKeysTable,
  fresh: ReturnType<typeof freshClaim>,
  now: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('idempotency_keys')
      .set(fresh)
      .where('account_id', '=', row.account_id)
      .where('key', '=', row.key)
      .where('state', '=', row.state)
      .where('created_at', '=', row.created_at)
      .where('owner', row.owner === null ? 'is' : '=', row.owner)
      .where('expires_at', row.expires_at === null ? 'is' : '=', row.expires_at)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await countRecords(trx, row.account_id, Number(row.created_at), -1);
    await countRecords(trx, row.account_id, now, 1);
    return true;
  });
}

/** Moves the count of `accountId`'s records created in the hour of `createdAt`. */
function countRecords(executor: Executor, accountId: string, createdAt: number, delta: 1 | -1) {
  return executor
    .insertInto('idempotency_usage')
    .values({ account_id: accountId, hour: hourOf(createdAt), records: delta })
    .onConflict((oc) =>
      oc.columns(['account_id', 'hour']).doUpdateSet({
        records: sql<number>`${sql.ref('idempotency_usage.records')} + ${delta}`,
      }),
    )
    .execute();
}

/**
 * Refuses (RateLimited, rolling back the caller's transaction) when the account holds more than
 * its cap once this claim is counted. Run after the count moved, in the same transaction: on
 * PostgreSQL concurrent claims queue on the hour's row, so each sees the ones before it.
 */
async function assertUnderCap(
  { maxRecordsPerAccount }: Records,
  trx: Executor,
  accountId: string,
  now: number,
  counted: 'with this claim' | 'before it',
): Promise<void> {
  if (!Number.isFinite(maxRecordsPerAccount)) return;
  const hours = await trx
    .selectFrom('idempotency_usage')
    .select(['hour', 'records'])
    .where('account_id', '=', accountId)
    .where('hour', '>=', oldestLiveHour(now))
    .orderBy('hour')
    .execute();
  const live = hours.reduce((sum, row) => sum + Number(row.records), 0);
  if (counted === 'with this claim' ? live <= maxRecordsPerAccount : live < maxRecordsPerAccount) return;
  // Room comes back when the oldest counted hour leaves the day.
  const oldest = hours.find((row) => Number(row.records) > 0);
  const freedAt = Number(oldest?.hour ?? hourOf(now)) + HOUR_MS + IDEMPOTENCY_TTL_MS;
  throw new RateLimited(
    `Too many Idempotency-Key records for this account (at most ${maxRecordsPerAccount} kept for 24 h); reuse keys only for retries, or retry later`,
    Math.max(1000, freedAt - now),
  );
}

/** Deletes one of this holder's records, and uncounts it, in `executor`'s transaction. */
async function deleteHeld(claim: IdempotencyClaim, executor: Executor, inProgressOnly: boolean) {
  const removed = await executor
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', claim.accountId)
    .where('key', '=', claim.key)
    .where('owner', '=', claim.owner)
    .$if(inProgressOnly, (query) => query.where('state', '=', 'in_progress'))
    .returning('created_at')
    .executeTakeFirst();
  if (removed) await countRecords(executor, claim.accountId, Number(removed.created_at), -1);
}

/** An update of `claim`'s record, only while this holder still has it in progress. */
function held(claim: IdempotencyClaim, executor: Executor) {
  return executor
    .updateTable('idempotency_keys')
    .where('account_id', '=', claim.accountId)
    .where('key', '=', claim.key)
    .where('owner', '=', claim.owner)
    .where('state', '=', 'in_progress');
}

/** Whether a record no longer binds its key: past its lifetime, or in progress with a dead holder. */
function isStale(owner: ProcessOwner, row: IdempotencyKeysTable, now: number): boolean {
  if (now - Number(row.created_at) > IDEMPOTENCY_TTL_MS) return true;
  if (row.state !== 'in_progress') return false;
  if (row.owner === null) return now - Number(row.created_at) > UNOWNED_CLAIM_MS;
  return Number(row.expires_at ?? 0) < now || owner.isDead(row.owner);
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;
