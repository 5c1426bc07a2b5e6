import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { taskBatchSchema, taskRecordSchema } from '../../base/contract/tasks.js';
import { TASK_STATUSES } from '../../base/domain/task-status.js';
import type { TaskRecordRow } from '../../capabilities/tasks/index.js';
import { notFoundRecord, toTaskRecord } from '../../capabilities/tasks/index.js';
import { compileJsonSerializer } from '../http/response-serializer.js';
import { createTaskRecordJson } from './task-record-json.js';

// The routes' own serializers: what GET /tasks/{id} and GET /tasks wrote before they sent text.
const recordSerializer = compileJsonSerializer(taskRecordSchema);
const batchSerializer = compileJsonSerializer(taskBatchSchema);

const text = fc.string({ unit: 'binary', maxLength: 40 });
const nullable = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null });
const rowArbitrary: fc.Arbitrary<TaskRecordRow> = fc.record({
  id: fc.stringMatching(/^tsk_[A-Za-z0-9_-]{1,12}$/),
  status: fc.constantFrom(...TASK_STATUSES),
  progress: fc.integer({ min: 0, max: 100 }),
  image_url: nullable(text),
  error: nullable(text),
  width: nullable(fc.integer({ min: 1, max: 8192 })),
  height: nullable(fc.integer({ min: 1, max: 8192 })),
  content_type: nullable(text),
  bytes: nullable(fc.integer({ min: 0, max: 2 ** 31 })),
  provider: text,
  waiting_for: fc.constantFrom(null, 'upstream_capacity' as const),
  cost_micros: nullable(fc.integer({ min: 0, max: 10_000_000 })),
  cost_source: fc.constantFrom(null, 'upstream_usage' as const, 'catalog_price' as const),
  blob_key: nullable(text),
  seed: nullable(fc.integer({ min: 0, max: 2 ** 31 - 1 })),
});

test('one record: the bytes of the route schema serializer, and JSON that reads back as the record', () => {
  const json = createTaskRecordJson();
  fc.assert(
    fc.property(rowArbitrary, (row) => {
      const expected = recordSerializer(toTaskRecord(row));
      assert.equal(json.one(row), expected);
      // A final row's text is kept: asked again, the same text.
      assert.equal(json.one(row), expected);
      assert.deepEqual(JSON.parse(expected), JSON.parse(JSON.stringify(toTaskRecord(row))));
    }),
  );
});

test('a batch: the batch serializer’s bytes, input order, unknown ids in place, repeats kept', () => {
  const json = createTaskRecordJson();
  fc.assert(
    fc.property(
      fc.uniqueArray(rowArbitrary, { selector: (row) => row.id, maxLength: 20 }),
      fc.array(fc.stringMatching(/^tsk_[A-Za-z0-9_-]{1,12}$/), { maxLength: 5 }),
      fc.integer(),
      (rows, unknown, seed) => {
        const known = rows.map((row) => row.id);
        const ids = [...known, ...unknown.filter((id) => !known.includes(id))];
        // Shuffled input order, with one id asked twice when there is one.
        const order = ids
          .map((id, i) => ({ id, key: (i * 7919 + seed) % 101 }))
          .sort((a, b) => a.key - b.key)
          .map((entry) => entry.id);
        if (order.length > 0) order.push(order[0] as string);
        const byId = new Map(rows.map((row) => [row.id, toTaskRecord(row)]));
        const expected = batchSerializer({ tasks: order.map((id) => byId.get(id) ?? notFoundRecord(id)) });
        assert.equal(json.batch(order, rows), expected);
      },
    ),
  );
});

test('an unfinished row is written afresh each time; a final row once', () => {
  const json = createTaskRecordJson();
  const row: TaskRecordRow = {
    id: 'tsk_a',
    status: 'in_progress',
    progress: 10,
    image_url: null,
    error: null,
    width: null,
    height: null,
    content_type: null,
    bytes: null,
    provider: 'local',
    waiting_for: null,
    cost_micros: null,
    cost_source: null,
    blob_key: null,
  };
  assert.match(json.one(row), /"progress":10/);
  row.progress = 40;
  assert.match(json.one(row), /"progress":40/);
  const done = Object.freeze({ ...row, status: 'completed' as const, image_url: 'http://x/files/a.png' });
  assert.equal(json.one(done), json.one(done));
  assert.equal(JSON.parse(json.one(done)).imageUrl, 'http://x/files/a.png');
});

test('a batch of final records kept in memory is kept as bytes, by account and id list; any other is not', () => {
  const json = createTaskRecordJson();
  const final = (id: string): TaskRecordRow =>
    Object.freeze({
      id,
      status: 'completed' as const,
      progress: 100,
      image_url: `http://x/files/${id}.png`,
      error: null,
      width: 64,
      height: 64,
      content_type: 'image/png',
      bytes: 10,
      provider: 'local',
      waiting_for: null,
      cost_micros: 0,
      cost_source: 'catalog_price' as const,
      blob_key: `results/${id}.png`,
    });
  const rows = [final('tsk_a'), final('tsk_b')];
  let reads = 0;
  const keptRows = () => {
    reads++;
    return rows;
  };
  const ids = ['tsk_b', 'tsk_a', 'tsk_b'];
  const first = json.finalBatch('acc_1', ids, keptRows);
  assert.equal(first?.toString('utf8'), json.batch(ids, rows));
  assert.equal(json.finalBatch('acc_1', ids, keptRows), first, 'the same bytes, not assembled again');
  assert.equal(reads, 1);
  // Another id list, or another account, is its own answer.
  assert.notEqual(json.finalBatch('acc_1', ['tsk_a'], keptRows), first);
  assert.equal(json.finalBatch('acc_2', ids, () => [])?.toString('utf8'), json.batch(ids, []));
  assert.equal(reads, 2);
  // Not every id final and kept: nothing is kept, and the rows are asked for again next time.
  assert.equal(
    json.finalBatch('acc_3', ids, () => undefined),
    undefined,
  );
  assert.equal(json.finalBatch('acc_3', ids, keptRows)?.toString('utf8'), json.batch(ids, rows));
});
