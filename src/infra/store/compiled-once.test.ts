import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compiledOnce, compiledPerLength } from './compiled-once.js';
import { openDatabase } from './database.js';

// Compiled queries answer exactly what the same query built per call answers: values swapped into
// their places (never a constant of the query), one compiled query per list length, and lists past
// the kept lengths built per call.
test('compiled queries bind each call’s values, per list length, as the built query would', async () => {
  const db = await openDatabase(':memory:');
  try {
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
  } finally {
    await db.destroy();
  }
});
