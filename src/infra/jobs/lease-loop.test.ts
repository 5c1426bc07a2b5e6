import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { systemClock } from '../../base/runtime/clock.js';
import { createLeaseLoop } from './lease-loop.js';

/** Resolves after the current turn and the one after it (a wake-up's `setImmediate` has run). */
const twoTurns = () => new Promise<void>((done) => setImmediate(() => setImmediate(done)));

/**
 * A loop over items worked until `finish(id, result)`, whose rounds are counted: it never sleeps
 * past a wake-up (the idle poll is an hour), so every round after the first is one a wake-up asked for.
 */
function countedLoop(concurrency: number) {
  const due: string[] = [];
  const finishers = new Map<string, (result: unknown) => void>();
  let rounds = 0;
  let roundSeen: (() => void) | undefined;
  const loop = createLeaseLoop<string>({
    name: 'test loop',
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    concurrency,
    idlePollMs: 3_600_000,
    leaseDue: async (limit) => {
      rounds++;
      roundSeen?.();
      return due.splice(0, limit);
    },
    nextDueAt: async () => undefined,
    releaseAll: async () => {},
    idOf: (item) => item,
    work: (item) => new Promise((resolve) => finishers.set(item, resolve)),
  });
  return {
    loop,
    due,
    rounds: () => rounds,
    /** Resolves at the next round's look for due work. */
    nextRound: () =>
      new Promise<void>((done) => {
        roundSeen = () => {
          roundSeen = undefined;
          done();
        };
      }),
    finish(id: string, result: unknown) {
      finishers.get(id)?.(result);
    },
  };
}

describe('lease loop wake-ups', () => {
  test('an item that ended for good while the loop had room starts no round', async (t) => {
    const c = countedLoop(4);
    t.after(() => c.loop.stop(0));
    const first = c.nextRound();
    c.loop.start();
    await first;
    await twoTurns();
    const before = c.rounds();
    void c.loop.track('handed-off');
    c.finish('handed-off', 'ended');
    await twoTurns();
    assert.equal(c.rounds(), before, 'no look at the store for a slot nobody waits for');
    // An item that may be due again (a poll, a retry) still wakes the loop, which recounts.
    void c.loop.track('polled');
    const next = c.nextRound();
    c.finish('polled', undefined);
    await next;
    assert.equal(c.rounds(), before + 1);
  });

  test('an item that ended for good wakes a loop that was short of slots', async (t) => {
    const c = countedLoop(2);
    t.after(() => c.loop.stop(0));
    c.due.push('a', 'b', 'c');
    const first = c.nextRound();
    c.loop.start();
    await first;
    await twoTurns();
    // The first round took two of three due items; the one left waits for a slot.
    const next = c.nextRound();
    c.finish('a', 'ended');
    await next;
    await twoTurns();
    assert.deepEqual(c.due, [], 'the freed slot took the waiting item');
    c.finish('b', 'ended');
    c.finish('c', 'ended');
  });
});
