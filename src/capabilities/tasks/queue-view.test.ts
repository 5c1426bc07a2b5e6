import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nextTurns } from './queue-view.js';

const tally = (waiting: number, inFlight: number, oldest: number) => ({
  waiting,
  inFlight,
  queued: waiting,
  oldest,
});

describe("the next fair turns of a route's accounts", () => {
  test('a backlog of thousands beside a few tasks: each account a turn in rounds', () => {
    const turns = nextTurns(
      new Map([
        ['big', tally(4000, 0, 1)],
        ['small', tally(10, 0, 2)],
      ]),
      10,
    );
    assert.deepEqual(Object.fromEntries(turns), { big: 5, small: 5 });
  });

  test('tasks already in flight put an account behind; an account with none left drops out', () => {
    const turns = nextTurns(
      new Map([
        ['a', tally(8, 1, 1)],
        ['b', tally(2, 0, 2)],
        ['c', tally(1, 0, 3)],
        ['idle', tally(0, 5, 0)],
      ]),
      10,
    );
    assert.deepEqual(Object.fromEntries(turns), { b: 2, c: 1, a: 7 });
  });

  test('fewer waiting tasks than turns: every one is counted, no more', () => {
    const turns = nextTurns(new Map([['a', tally(3, 4, 1)]]), 10);
    assert.deepEqual(Object.fromEntries(turns), { a: 3 });
  });
});
