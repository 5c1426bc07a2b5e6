import { sql } from 'kysely';
import type { Db } from '../../../infra/store/database.js';
import { POLLS_SUFFIX } from './capacity-pool.js';
import { UNFINISHED } from './capacity-reads.js';

/** One pool as the gauges show it (the deployment's, read from the store at scrape time). */
export interface PoolSnapshot {
  provider: string;
  /** The key's hash, never the key. */
  key: string;
  upstreamModel: string;
  /** The learned limit of calls in flight; null while unbounded (no refusal seen). */
  learnedLimit: number | null;
  inFlight: number;
  waiting: number;
}

/** Every pool's learned limit, calls in flight and parked tasks (the gauges, read at scrape time). */
export async function readPoolSnapshots(db: Db): Promise<PoolSnapshot[]> {
  const rows = await db
    .selectFrom('upstream_pools as p')
    // The hold of a pool's polls is a row of its own, not a pool.
    .where('p.pool', 'not like', `%${POLLS_SUFFIX}`)
    .select((eb) => [
      'p.provider',
      'p.upstream_model',
      'p.key_hash',
      'p.learned_limit',
      eb
        .selectFrom('upstream_calls as c')
        .select(sql<number>`count(*)`.as('n'))
        .whereRef('c.pool', '=', 'p.pool')
        .where('c.ended_at', 'is', null)
        .as('in_flight'),
      eb
        .selectFrom('tasks as t')
        .select(sql<number>`count(*)`.as('n'))
        .whereRef('t.capacity_pool', '=', 'p.pool')
        .where(UNFINISHED)
        .as('waiting'),
    ])
    .execute();
  return rows.map((row) => ({
    provider: row.provider,
    upstreamModel: row.upstream_model,
    key: row.key_hash,
    learnedLimit: row.learned_limit,
    inFlight: Number(row.in_flight ?? 0),
    waiting: Number(row.waiting ?? 0),
  }));
}
