import type { CompiledQuery } from 'kysely';
import { compiledOnce } from '../../../infra/store/compiled-once.js';
import { type Db, dialectOf } from '../../../infra/store/database.js';
import type { UpstreamPoolsTable } from '../../../infra/store/schema/capacity.js';

/**
 * The writes of every slot (an acquire, a release) and the read of a poll's hold: built and
 * compiled once, not per upstream call. The pool's select locks its row on PostgreSQL (SQLite has
 * one writer).
 */
export function slotStatements(db: Db) {
  const postgres = dialectOf(db) === 'postgres';
  return {
    insertPool: compiledOnce(
      5,
      (pool: string, provider: string, upstreamModel: string, keyHash: string, now: number) =>
        db
          .insertInto('upstream_pools')
          .values({
            pool,
            provider,
            upstream_model: upstreamModel,
            key_hash: keyHash,
            learned_limit: null,
            successes: 0,
            burst_floor: 1,
            hold_until: 0,
            retry_at: 0,
            updated_at: now,
            refused_at: 0,
            ramp_since: 0,
            ramp_base: 0,
            quota_limit: null,
            quota_remaining: null,
            quota_reset_at: 0,
            quota_seen_at: 0,
          })
          .onConflict((oc) => oc.column('pool').doNothing()),
    ),
    selectPool: compiledOnce(1, (pool: string) => {
      const query = db.selectFrom('upstream_pools').selectAll().where('pool', '=', pool);
      return postgres ? query.forUpdate() : query;
    }),
    insertCall: compiledOnce(5, (id: string, pool: string, taskId: string, owner: string, now: number) =>
      db
        .insertInto('upstream_calls')
        .values({ id, pool, task_id: taskId, owner, started_at: now, ended_at: null, refused: 0 }),
    ),
    endCall: compiledOnce(3, (id: string, now: number, refused: number) =>
      db.updateTable('upstream_calls').set({ ended_at: now, refused }).where('id', '=', id),
    ),
    /** What a call's end taught the pool (its successes, a lower limit, a hold, a request budget). */
    updatePool: poolUpdates(db),
    /** Read before each poll of an async job: are its polls held by a poll's Retry-After? */
    selectHold: compiledOnce(1, (pool: string) =>
      db.selectFrom('upstream_pools').select('hold_until').where('pool', '=', pool),
    ),
  };
}

export type SlotStatements = ReturnType<typeof slotStatements>;

/** An update of a pool's row, compiled once per set of columns it writes (a lesson has a few shapes). */
function poolUpdates(db: Db) {
  const byShape = new Map<string, (...values: unknown[]) => CompiledQuery<unknown>>();
  return (poolId: string, set: Partial<UpstreamPoolsTable>): CompiledQuery<unknown> => {
    const columns = (Object.keys(set) as Array<keyof UpstreamPoolsTable>).filter((c) => set[c] !== undefined);
    const shape = columns.join(',');
    let query = byShape.get(shape);
    if (query === undefined) {
      query = compiledOnce(columns.length + 1, (...values: unknown[]) =>
        db
          .updateTable('upstream_pools')
          .set(Object.fromEntries(columns.map((column, i) => [column, values[i]])))
          .where('pool', '=', values[columns.length] as string),
      );
      byShape.set(shape, query);
    }
    return query(...columns.map((column) => set[column]), poolId);
  };
}
