import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import { systemClock } from '../../src/base/runtime/clock.js';
import { randomIds } from '../../src/base/runtime/ids.js';
import { createCapacityReads } from '../../src/capabilities/tasks/capacity/capacity-reads.js';
import { createTasksRepository } from '../../src/capabilities/tasks/tasks-repository.js';
import { type Db, dialectOf, openDatabase } from '../../src/infra/store/database.js';
import { createGenerationsRepository } from '../../src/use-cases/generations/generations-repository.js';
import { createTestPostgresDatabase, dropTestDatabase, testStore } from '../support/test-database.js';

// The engine asks these every idle second on the API's event loop: with a table of 400,000 finished
// tasks, a scan costs ~100 ms each time. They must be answered from the partial due-queue index
// (`tasks_due`, unfinished tasks only), on both stores.
let db: Db;
let cleanup: () => Promise<void>;

before(async () => {
  if (testStore() === 'postgres') {
    const url = await createTestPostgresDatabase();
    db = await openDatabase(url);
    cleanup = () => dropTestDatabase(url);
  } else {
    const dir = await mkdtemp(join(tmpdir(), 'atelier-plan-'));
    db = await openDatabase(join(dir, 'atelier.db'));
    cleanup = () => rm(dir, { recursive: true, force: true });
  }
});

after(async () => {
  await db.destroy();
  await cleanup();
});

/** The statements a tasks repository call sends, captured as Kysely trees. */
function statementsOf(call: (tasks: ReturnType<typeof createTasksRepository>) => Promise<unknown>) {
  return statementsOfRepository((captured) =>
    call(createTasksRepository({ db: captured, clock: systemClock })),
  );
}

/** The statements a call sends through the database it is given, captured as Kysely trees. */
async function statementsOfRepository(call: (captured: Db) => Promise<unknown>) {
  const nodes: RootOperationNode[] = [];
  const capture: KyselyPlugin = {
    transformQuery: (args) => {
      nodes.push(args.node);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  await call(db.withPlugin(capture));
  // A query compiled once (compiledOnce) is seen with its placeholders: any value does for a plan
  // that reads as text and as a number alike (PostgreSQL parses each by its column's type).
  return nodes.map((node) => {
    const compiled = db.getExecutor().compileQuery(node, { queryId: 'plan' } as never);
    const parameters = compiled.parameters.map((value) => (typeof value === 'symbol' ? '1' : value));
    return { ...compiled, parameters };
  });
}

/** The query plan of a compiled statement, as one string; on PostgreSQL with sequential scans priced out. */
async function planOf(compiled: { sql: string; parameters: readonly unknown[] }): Promise<string> {
  return db.connection().execute(async (conn) => {
    const postgres = dialectOf(db) === 'postgres';
    // A near-empty table is cheapest to scan; the question is whether the index can answer at all.
    if (postgres) await sql`set enable_seqscan = off`.execute(conn);
    const explain = postgres ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN';
    const result = await conn.executeQuery({ ...compiled, sql: `${explain} ${compiled.sql}` } as never);
    if (postgres) await sql`reset enable_seqscan`.execute(conn);
    return JSON.stringify(result.rows);
  });
}

for (const [name, call] of [
  ['leaseDue', (tasks) => tasks.leaseDue('plan-owner', 30_000, 8)],
  ['nextDueAt', (tasks) => tasks.nextDueAt()],
  ['leaseHolders', (tasks) => tasks.leaseHolders()],
] as const satisfies readonly (readonly [string, Parameters<typeof statementsOf>[0]])[]) {
  test(`${name} reads the due-queue index, not the whole tasks table`, async () => {
    const statements = await statementsOf(call);
    assert.ok(statements.length > 0);
    const plan = await planOf(statements[0] as (typeof statements)[number]);
    assert.match(plan, /tasks_due/, plan);
    assert.doesNotMatch(plan, /SCAN tasks(?! USING)|Seq Scan on tasks/, plan);
  });
}

test('a batch poll reads its tasks by primary key, not every task of the account', async () => {
  const ids = Array.from({ length: 20 }, (_, i) => `tsk_plan_${i}`);
  const [statement] = await statementsOf((tasks) => tasks.readRecordsForAccount('acc_plan', ids));
  assert.ok(statement);
  const plan = await planOf(statement);
  assert.doesNotMatch(plan, /SCAN tasks(?! USING)|Seq Scan on tasks/, plan);
  // PostgreSQL judges by its statistics (an empty table here); SQLite has none and must be told.
  if (dialectOf(db) === 'sqlite') {
    assert.match(plan, /sqlite_autoindex_tasks_1 \(id=\?\)/, plan);
    assert.doesNotMatch(plan, /tasks_account_status/, plan);
  }
});

test("the creation view's question 'which works were deleted since?' reads the index of deleted works", async () => {
  const [statement] = await statementsOfRepository((captured) =>
    createGenerationsRepository({ db: captured, clock: systemClock, ids: randomIds }).removedSince(
      'acc_plan',
      Date.now() - 20_000,
      501,
    ),
  );
  assert.ok(statement);
  const plan = await planOf(statement);
  assert.match(plan, /generations_removed/, plan);
  assert.doesNotMatch(plan, /SCAN generations(?! USING)|Seq Scan on generations/, plan);
});

// Every slot decision counts the pool's calls in flight; `upstream_calls` holds the whole window's
// calls (a minute of them). The counts read the partial index of calls in flight, not the window.
for (const [name, call] of [
  ['rampEvidence', (reads, trx) => reads.rampEvidence(trx, 'pool_plan', Date.now())],
  ['inFlight', (reads, trx) => reads.inFlight(trx, 'pool_plan')],
  ['endDeadCalls', (reads, trx) => reads.endDeadCalls(trx, 'pool_plan', Date.now())],
] as const satisfies readonly (readonly [
  string,
  (reads: ReturnType<typeof createCapacityReads>, trx: Db) => Promise<unknown>,
])[]) {
  test(`the capacity count ${name} reads the index of calls in flight`, async () => {
    const [statement] = await statementsOfRepository((captured) =>
      call(createCapacityReads(captured, 61_000), captured),
    );
    assert.ok(statement);
    const plan = await planOf(statement);
    assert.match(plan, /upstream_calls_in_flight/, plan);
  });
}
