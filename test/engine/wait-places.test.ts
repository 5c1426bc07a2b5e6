import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOpenAIProvider } from '../../src/capabilities/providers/openai-provider.js';
import { capacityPool } from '../../src/capabilities/tasks/capacity/capacity-pool.js';
import { createUpstreamCapacity } from '../../src/capabilities/tasks/capacity/upstream-capacity.js';
import { ESTIMATE_STEP_MS } from '../../src/capabilities/tasks/capacity/wait-places.js';
import { toTaskRecord } from '../../src/capabilities/tasks/task-record.js';
import { parkPatch } from '../../src/capabilities/tasks/task-submit.js';
import { type Core, createCore } from '../../src/core.js';
import { createTaskRecordJson } from '../../src/edges/api/task-record-json.js';
import { removeTestData } from '../support/test-database.js';
import { capacityConfig, capacityOverrides, UPSTREAM_KEY } from './capacity-fixtures.js';

// Where a parked task stands (issue 27): its place among its own account's parked tasks and a start
// estimate, on the records of an account's reads. The engine is not started: tasks are parked and
// called back by the capacity module itself, on an injected clock.

const HOLD_MS = 30_000;

test("parked tasks show their place in their account's queue and a start estimate no earlier than the hold's end", async () => {
  let now = Date.UTC(2026, 0, 1, 12, 0, 0, 1);
  const clock = { now: () => now };
  const config = await capacityConfig('openai', 'gpt-image-1.5', { maxInFlight: 2 });
  let core: Core | undefined;
  try {
    const provider = createOpenAIProvider({ baseUrl: 'http://127.0.0.1:9' });
    core = await createCore(config, { ...capacityOverrides(provider), clock });
    const { taskService } = core;
    const submit = async (label: string, counts: number[]) => {
      const { account } = await (core as Core).accounts.create({ email: `${label}@example.test` });
      const ids: string[] = [];
      for (const count of counts) {
        const answer = await (core as Core).generations.generate(account, {
          prompt: label,
          model: 'base-image-2',
          imageSize: '1K',
          count,
        });
        ids.push(...answer.task_ids);
        now += 1000;
      }
      return { accountId: account.id, ids };
    };
    const a = await submit('first', [3, 1]);
    const b = await submit('second', [2]);
    const records = async (who: { accountId: string; ids: string[] }) => {
      const rows = await taskService.findMany(who.accountId, who.ids);
      const byId = new Map(rows.map((row) => [row.id, toTaskRecord(row)]));
      return who.ids.map((id) => byId.get(id));
    };
    const places = async (who: { accountId: string; ids: string[] }) =>
      (await records(who)).map((record) => record?.queue_position);

    // Not waiting yet: no place.
    assert.deepEqual(await places(a), [undefined, undefined, undefined, undefined]);

    // The upstream refuses a call with a Retry-After: the pool is held; every task parks on it.
    const capacity = createUpstreamCapacity({ db: core.resources.db, clock });
    const pool = capacityPool('openai', 'gpt-image-1.5', UPSTREAM_KEY, { maxInFlight: 2 });
    const slot = await capacity.acquire(pool, 'tsk_elsewhere', 'someone', false);
    assert.equal(slot.kind, 'granted');
    if (slot.kind === 'granted') await capacity.release(pool, slot.callId, 'refused', HOLD_MS);
    const holdEnd = now + HOLD_MS;
    for (const id of [...a.ids, ...b.ids]) {
      const row = await core.resources.db
        .selectFrom('tasks')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      await core.resources.db
        .updateTable('tasks')
        .set(parkPatch(row, pool, now))
        .where('id', '=', id)
        .execute();
    }

    // Places in submission order, per account; the second account starts again at 1.
    assert.deepEqual(await places(a), [1, 2, 3, 4]);
    assert.deepEqual(await places(b), [1, 2]);
    // The estimate: the first of each account starts when the hold ends (2 slots, one task of each
    // account per turn); later ones have no estimate (no pace known yet), never an earlier one.
    const [firstOfA, secondOfA] = await records(a);
    assert.equal(
      firstOfA?.estimated_start_at,
      new Date(Math.ceil(holdEnd / ESTIMATE_STEP_MS) * ESTIMATE_STEP_MS).toISOString(),
    );
    assert.equal(secondOfA?.estimated_start_at, undefined);
    for (const record of [...(await records(a)), ...(await records(b))]) {
      if (record?.estimated_start_at !== undefined)
        assert.ok(Date.parse(record.estimated_start_at) >= holdEnd, 'never before the hold ends');
    }
    // The same on the wire (the poll routes' serializer) and on the website's cards.
    const rows = await taskService.findMany(a.accountId, [a.ids[0] as string]);
    assert.match(
      createTaskRecordJson().one(rows[0] as (typeof rows)[0]),
      /"waiting_for":"upstream_capacity","queue_position":1,"estimated_start_at":"20/,
    );
    const cards = await taskService.listPendingForAccount(a.accountId, { since: undefined, limit: 50 });
    assert.deepEqual(
      a.ids.map((id) => cards.find((card) => card.task_id === id)?.queue_position),
      [1, 2, 3, 4],
    );

    // With a pace (calls started in the window, written here as the pool records them), the later
    // tasks get later estimates too.
    for (let i = 0; i < 2; i++) {
      await core.resources.db
        .insertInto('upstream_calls')
        .values({
          id: `call_paced_${i}`,
          pool: pool.id,
          task_id: `tsk_paced_${i}`,
          owner: 'someone',
          started_at: now,
          ended_at: now,
          refused: 0,
        })
        .execute();
    }
    const paced = (await records(a)).map((record) => Date.parse(record?.estimated_start_at ?? ''));
    assert.ok(
      paced.every((at) => at >= holdEnd),
      `${paced}`,
    );
    assert.ok(
      paced.every((at, i) => i === 0 || at >= (paced[i - 1] as number)),
      `${paced} in order`,
    );

    // The hold ends: the pool calls back two tasks in fair turns (one of each account).
    now = holdEnd + 1;
    const called = await capacity.callBackWaiting(pool);
    assert.equal(called.called, 2);
    assert.deepEqual(await places(a), [1, 2, 3, 4], 'a called-back task keeps its place until it starts');
    // The called-back tasks take their slots (their waits end, as the submit writes): the rest move up.
    for (const id of [a.ids[0], b.ids[0]])
      await core.resources.db
        .updateTable('tasks')
        .set({ waiting_for: null, capacity_pool: null, waiting_since: null })
        .where('id', '=', id as string)
        .execute();
    assert.deepEqual(await places(a), [undefined, 1, 2, 3]);
    assert.deepEqual(await places(b), [undefined, 1]);

    // A finished task carries neither field; the tasks behind it move up.
    const canceled = await taskService.cancel(a.accountId, a.ids[1] as string);
    assert.equal(canceled.status, 'failed');
    const [, after] = await records(a);
    for (const record of [canceled, after]) {
      assert.equal(record?.waiting_for, undefined);
      assert.equal(record?.queue_position, undefined);
      assert.equal(record?.estimated_start_at, undefined);
    }
    assert.deepEqual(await places(a), [undefined, undefined, 1, 2]);
  } finally {
    await core?.close(500);
    await removeTestData(config);
  }
});
