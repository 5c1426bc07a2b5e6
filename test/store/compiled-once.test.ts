import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Insertable } from 'kysely';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { compiledInserts, compiledOnce, compiledPerLength } from '../../src/infra/store/compiled-once.js';
import { type Db, openDatabase } from '../../src/infra/store/database.js';
import type { Database } from '../../src/infra/store/schema.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';

// Compiled queries answer exactly what the same query built per call answers: values swapped into
// their places (never a constant of the query), one compiled query per list length, and lists past
// the kept lengths built per call. On the test store (SQLite or PostgreSQL: their SQL differs).
let config: Config;
let db: Db;

before(async () => {
  config = loadConfig({ ...(await freshTestDataEnv('compiled-once-')), LOG_LEVEL: 'silent' });
  db = await openDatabase(config.databaseUrl);
});
after(async () => {
  await db.destroy();
  await removeTestData(config);
});

test('compiled queries bind each call’s values, per list length, as the built query would', async () => {
  const byId = compiledOnce(2, (id: string, minimum: number) =>
    db.selectFrom('accounts').select('id').where('id', '=', id).where('created_at', '>', minimum),
  );
  const first = byId('acc_1', 5);
  const second = byId('acc_2', 7);
  assert.equal(first.sql, second.sql);
  assert.deepEqual(first.parameters, ['acc_1', 5]);
  assert.deepEqual(second.parameters, ['acc_2', 7]);

  const build = ([email]: [string], ids: string[]) =>
    db.selectFrom('accounts').select('id').where('id', 'in', ids).where('email', '=', email);
  const perLength = compiledPerLength(1, build);
  for (const ids of [['a'], ['a', 'b', 'c'], ['x'], ['x', 'y', 'z']]) {
    const compiled = perLength(['e@example.test'], ids);
    const expected = build(['e@example.test'], ids).compile();
    assert.equal(compiled.sql, expected.sql);
    assert.deepEqual(compiled.parameters, expected.parameters);
  }
  // Past 64 items the query is built for the call: the same SQL, every value in place.
  const many = Array.from({ length: 70 }, (_, i) => `id_${i}`);
  const compiled = perLength(['e@example.test'], many);
  assert.deepEqual(compiled.parameters, [...many, 'e@example.test']);
  assert.equal((await db.executeQuery(compiled)).rows.length, 0);
});

test('compiled inserts: one statement per count of rows and set of columns, each row in place', async () => {
  const inserts = compiledInserts(db, 'usage_erased');
  // Rows that leave columns to their defaults (the row type names every column).
  const row = (day: string, failed?: number) =>
    ({
      day,
      model: 'm',
      completed: 1,
      ...(failed === undefined ? {} : { failed }),
    }) as Insertable<Database['usage_erased']>;
  for (const rows of [[row('a')], [row('b'), row('c')], [row('d', 4)], [row('e'), row('f')]]) {
    const compiled = inserts(rows);
    const expected = db.insertInto('usage_erased').values(rows).compile();
    assert.equal(compiled.sql, expected.sql);
    assert.deepEqual(compiled.parameters, expected.parameters);
    await db.executeQuery(compiled);
  }
  const stored = await db.selectFrom('usage_erased').select(['day', 'failed']).orderBy('day').execute();
  assert.deepEqual(
    stored.map((r) => [r.day, Number(r.failed)]),
    [
      ['a', 0],
      ['b', 0],
      ['c', 0],
      ['d', 4],
      ['e', 0],
      ['f', 0],
    ],
  );
  // One insert's rows set the same columns: another shape is not guessed at.
  assert.throws(() => inserts([row('g'), row('h', 1)]), /set different columns/);
});
