import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../platform/clock.js';
import type { ProcessOwner } from '../platform/process-owner.js';
import type { Db } from '../store/database.js';
import type { Database, IdempotencyKeysTable } from '../store/schema.js';

/** Keys are remembered this long (then the same key starts afresh). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-progress claim runs out this long after its last renewal; the request renews it while it runs. */
export const CLAIM_LEASE_MS = 30 * 1000;
/** Records written before claims named their holder: abandoned after this long (the former rule). */
const UNOWNED_CLAIM_MS = 10 * 60 * 1000;

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
}: {
  db: Db;
  clock: Clock;
  owner: ProcessOwner;
}) {
  /** An update of `claim`'s record, only while this holder still has it in progress. */
  const held = (claim: IdempotencyClaim, executor: Executor = db) =>
    executor
      .updateTable('idempotency_keys')
      .where('account_id', '=', claim.accountId)
      .where('key', '=', claim.key)
      .where('owner', '=', claim.owner)
      .where('state', '=', 'in_progress');

  /** Whether a record no longer binds its key: past its lifetime, or in progress with a dead holder. */
  function isStale(row: IdempotencyKeysTable, now: number): boolean {
    if (now - Number(row.created_at) > IDEMPOTENCY_TTL_MS) return true;
    if (row.state !== 'in_progress') return false;
    if (row.owner === null) return now - Number(row.created_at) > UNOWNED_CLAIM_MS;
    return Number(row.expires_at ?? 0) < now || owner.isDead(row.owner);
  }

  return {
    /**
     * Claims `key` for a request with `requestHash`. The primary key makes the claim atomic: of two
     * concurrent requests exactly one inserts; the other sees the existing record.
     */
    async claim(accountId: string, key: string, requestHash: string): Promise<ClaimResult> {
      const now = clock.now();
      const claim: IdempotencyClaim = { accountId, key, owner: owner.id };
      const fresh = {
        request_hash: requestHash,
        state: 'in_progress' as const,
        status_code: null,
        response_body: null,
        created_at: now,
        owner: owner.id,
        expires_at: now + CLAIM_LEASE_MS,
      };
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({ account_id: accountId, key, ...fresh })
        .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'claimed', claim };
      const row = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      if (isStale(row, now)) {
        // Take the stale record over only as it was read, so two takers (or a renewal) cannot both win.
        const taken = await db
          .updateTable('idempotency_keys')
          .set(fresh)
          .where('account_id', '=', accountId)
          .where('key', '=', key)
          .where('state', '=', row.state)
          .where('created_at', '=', row.created_at)
          .where('owner', row.owner === null ? 'is' : '=', row.owner)
          .where('expires_at', row.expires_at === null ? 'is' : '=', row.expires_at)
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) === 1) return { kind: 'claimed', claim };
      }
      return { kind: 'existing', row };
    },

    /** Extends a claim's lease; false when it is no longer held (recorded, released or taken over). */
    async renew(claim: IdempotencyClaim): Promise<boolean> {
      const result = await held(claim)
        .set({ expires_at: clock.now() + CLAIM_LEASE_MS })
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Records the response of a claimed key, to be replayed; a no-op once the claim is not held. */
    async complete(claim: IdempotencyClaim, statusCode: number, body: string): Promise<void> {
      await held(claim).set(done(statusCode, body)).execute();
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
      await trx
        .deleteFrom('idempotency_keys')
        .where('account_id', '=', claim.accountId)
        .where('key', '=', claim.key)
        .where('owner', '=', claim.owner)
        .execute();
    },

    /** Frees a claim whose request failed on our side, so the caller may retry with the same key. */
    async release(claim: IdempotencyClaim): Promise<void> {
      await db
        .deleteFrom('idempotency_keys')
        .where('account_id', '=', claim.accountId)
        .where('key', '=', claim.key)
        .where('owner', '=', claim.owner)
        .where('state', '=', 'in_progress')
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
