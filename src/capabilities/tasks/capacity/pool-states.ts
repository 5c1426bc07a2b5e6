import { sql } from 'kysely';
import type { Db } from '../../../infra/store/database.js';
import { POLLS_SUFFIX } from './capacity-pool.js';
import { UNFINISHED } from './capacity-reads.js';

/** One capacity pool as the operator console shows it: the deployment's figures, read from the store. */
export interface PoolState {
  provider: string;
  upstreamModel: string;
  /** The key's hash, never the key. */
  key: string;
  /** Calls in flight the pool takes, as learned from refusals; null while no refusal was seen. */
  learnedLimit: number | null;
  /** Upstream calls holding a slot now, on every node. */
  inFlight: number;
  /** Unfinished tasks parked on the pool, waiting for a slot. */
  waiting: number;
  /** Calls started in the last window (about a minute). */
  callsInWindow: number;
  /** Of those, the calls the upstream refused (429, RESOURCE_EXHAUSTED). */
  refusedInWindow: number;
  /** No call leaves before this time (epoch ms; a Retry-After); null when no hold is in force. */
  holdUntil: number | null;
  /** When the pool last changed (epoch ms). */
  updatedAt: number;
}

/**
 * Every pool's state now, in one query: what the capacity gate learned (limit, hold) and what the
 * calls table counts (in flight, started and refused in the window `windowSpan` before `now`).
 */
export async function readPoolStates(db: Db, now: number, windowSpan: number): Promise<PoolState[]> {
  const since = now - windowSpan;
  const rows = await db
    .selectFrom('upstream_pools as p')
    // The hold of a pool's polls is a row of its own, not a pool.
    .where('p.pool', 'not like', `%${POLLS_SUFFIX}`)
    .select((eb) => {
      const calls = () =>
        eb
          .selectFrom('upstream_calls as c')
          .select(sql<number>`count(*)`.as('n'))
          .whereRef('c.pool', '=', 'p.pool');
      return [
        'p.provider',
        'p.upstream_model',
        'p.key_hash',
        'p.learned_limit',
        'p.hold_until',
        'p.updated_at',
        calls().where('c.ended_at', 'is', null).as('in_flight'),
        calls().where('c.started_at', '>', since).as('in_window'),
        calls().where('c.started_at', '>', since).where('c.refused', '=', 1).as('refused'),
        eb
          .selectFrom('tasks as t')
          .select(sql<number>`count(*)`.as('n'))
          .whereRef('t.capacity_pool', '=', 'p.pool')
          .where(UNFINISHED)
          .as('waiting'),
      ];
    })
    .orderBy('p.provider')
    .orderBy('p.upstream_model')
    .orderBy('p.key_hash')
    .execute();
  return rows.map((row) => {
    const holdUntil = Number(row.hold_until);
    return {
      provider: row.provider,
      upstreamModel: row.upstream_model,
      key: row.key_hash,
      learnedLimit: row.learned_limit === null ? null : Number(row.learned_limit),
      inFlight: Number(row.in_flight ?? 0),
      waiting: Number(row.waiting ?? 0),
      callsInWindow: Number(row.in_window ?? 0),
      refusedInWindow: Number(row.refused ?? 0),
      holdUntil: holdUntil > now ? holdUntil : null,
      updatedAt: Number(row.updated_at),
    };
  });
}
