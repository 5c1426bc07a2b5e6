import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimited } from '../domain/errors.js';
import { createBoundedWorkPool } from './bounded-work-pool.js';

function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

test('runs at most `concurrency` at once, queues `queue` in order, refuses the rest with RateLimited', async () => {
  const pool = createBoundedWorkPool({ concurrency: 2, queue: 1, busyMessage: 'busy', retryAfterMs: 2000 });
  const gates = [gate(), gate(), gate()];
  const order: number[] = [];
  const runs = gates.map((g, i) =>
    pool.run(async () => {
      order.push(i);
      await g.opened;
      return i;
    }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, [0, 1]);
  assert.deepEqual(pool.load(), { running: 2, waiting: 1 });
  await assert.rejects(
    pool.run(async () => 'never'),
    (error: unknown) => error instanceof RateLimited && error.retryAfterMs === 2000,
  );
  gates[0]?.open();
  await runs[0];
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, [0, 1, 2], 'the waiting caller took the freed slot');
  for (const g of gates) g.open();
  assert.deepEqual(await Promise.all(runs), [0, 1, 2]);
  assert.deepEqual(pool.load(), { running: 0, waiting: 0 });
  assert.equal(await pool.run(async () => 'again'), 'again', 'a failure or refusal leaves no slot taken');
});
