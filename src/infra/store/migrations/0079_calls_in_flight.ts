import { type Kysely, type Migration, sql } from 'kysely';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Upstream capacity: every slot decision counts a pool's calls in flight (its ramp's evidence,
    // the calls of dead workers, a refusal's count of the others). `upstream_calls` keeps every call
    // of the window (a minute), so on `(pool, started_at)` each count read every call the pool made
    // in the last minute: at a hundred images a second, six thousand rows per upstream call. The
    // calls in flight alone, indexed with their start, answer those counts from the index.
    await db.schema
      .createIndex('upstream_calls_in_flight')
      .on('upstream_calls')
      .columns(['pool', 'started_at'])
      .where(sql.ref('ended_at'), 'is', null)
      .execute();
  },
};
