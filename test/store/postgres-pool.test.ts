import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createPostgresPool, nulSafePool } from '../../src/infra/store/postgres-pool.js';
import { createTestPostgresDatabase, dropTestDatabase, testStore } from '../support/test-database.js';

const onPostgres = {
  skip:
    testStore() === 'postgres' ? false : 'a PostgreSQL connection: runs in the PostgreSQL half of npm test',
};

/** Ends the server side of backend `pid` as a PostgreSQL restart or an operator would (FATAL 57P01). */
async function terminateBackend(databaseUrl: string, pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

describe('the PostgreSQL pool when the server drops a connection', onPostgres, () => {
  let databaseUrl: string;
  let raw: pg.Pool;

  before(async () => {
    databaseUrl = await createTestPostgresDatabase();
    raw = createPostgresPool(databaseUrl);
  });

  after(async () => {
    await raw.end();
    await dropTestDatabase(databaseUrl);
  });

  test('a checked-out client that loses its server between statements neither crashes the process nor goes back into the pool', async () => {
    const pool = nulSafePool(raw);
    const acquired = new Promise<pg.PoolClient>((resolve) => raw.once('acquire', resolve));
    const client = await pool.connect();
    const underlying = await acquired;
    const { rows } = await client.query('select pg_backend_pid() as pid', []);
    const ended = new Promise<void>((resolve) => underlying.once('end', () => resolve()));

    // Between two statements of a transaction, nothing is in flight: node-postgres emits the
    // server's FATAL as an 'error' event on the client, which nothing would hear without the pool's guard.
    await terminateBackend(databaseUrl, Number((rows[0] as { pid: number }).pid));
    await ended;

    await assert.rejects(client.query('select 1', []));
    client.release();
    assert.equal(raw.totalCount, 0, 'the broken client is destroyed, not kept for the next caller');

    const again = await pool.connect();
    try {
      const { rows: fresh } = await again.query('select 1 as one', []);
      assert.deepEqual(fresh, [{ one: 1 }]);
    } finally {
      again.release();
    }
  });
});
