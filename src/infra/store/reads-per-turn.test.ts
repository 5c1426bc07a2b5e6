import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readsPerTurn } from './reads-per-turn.js';

/** A store of versions whose every query is recorded. */
function fakeStore() {
  const values = new Map<string, number>([
    ['a', 1],
    ['b', 2],
  ]);
  const queries: string[][] = [];
  const read = readsPerTurn(async (keys: string[]) => {
    queries.push(keys);
    // The query reads the store when it runs, not when it was asked for.
    return new Map(keys.filter((key) => values.has(key)).map((key) => [key, values.get(key) ?? 0]));
  }, 0);
  return { values, queries, read };
}

test('reads asked for in one turn share one query, each answered its own value', async () => {
  const { queries, read } = fakeStore();
  const answers = await Promise.all([read('a'), read('b'), read('a'), read('nobody')]);
  assert.deepEqual(answers, [1, 2, 1, 0], 'a key the query does not find reads as the missing value');
  assert.deepEqual(queries, [['a', 'b', 'nobody']], 'one query, each key once');
});

test('a read starts after it was asked for: it sees a change committed before, in an earlier turn', async () => {
  const { values, queries, read } = fakeStore();
  assert.equal(await read('a'), 1);
  values.set('a', 5);
  assert.equal(await read('a'), 5, 'the later request is not answered from the earlier query');
  // A read asked for while a query is under way waits for a query of its own.
  const first = read('a');
  await new Promise((resolve) => setImmediate(resolve));
  values.set('a', 6);
  const second = read('a');
  assert.deepEqual(await Promise.all([first, second]), [5, 6]);
  assert.equal(queries.length, 4);
});

test('a failed query fails every read that was waiting on it, and the next turn queries again', async () => {
  let fail = true;
  const read = readsPerTurn(async (keys: string[]) => {
    if (fail) throw new Error('connection lost');
    return new Map(keys.map((key) => [key, 7]));
  }, 0);
  const results = await Promise.allSettled([read('a'), read('b')]);
  assert.deepEqual(
    results.map((result) => result.status),
    ['rejected', 'rejected'],
  );
  fail = false;
  assert.equal(await read('a'), 7);
});
