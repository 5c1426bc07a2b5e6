import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskRecord } from '../client/atelier-client.js';
import { decodeGenerationTaskId, encodeGenerationTaskId, taskOfRecords } from './generation-tasks.js';

const record = (task: Partial<TaskRecord> & Pick<TaskRecord, 'status'>): TaskRecord =>
  ({ task_id: 'tsk_1', progress: 0, ...task }) as TaskRecord;

describe('MCP tasks of generations', () => {
  it('an MCP task id carries the Atelier task ids and its creation time, and nothing else decodes', () => {
    const ref = { taskIds: ['tsk_a', 'tsk_b'], createdAt: 1_700_000_000_000 };
    const id = encodeGenerationTaskId(ref);
    assert.match(id, /^atelier-gen\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeGenerationTaskId(id), ref);
    const refused = { taskIds: [], createdAt: 1, failure: 'invalid_request (HTTP 400): no' };
    assert.deepEqual(decodeGenerationTaskId(encodeGenerationTaskId(refused)), refused);
    for (const bad of [
      'tsk_a',
      'atelier-gen.',
      'atelier-gen.bm90IGpzb24',
      `atelier-gen.${Buffer.from('{"ids":[],"at":1}').toString('base64url')}`,
      `atelier-gen.${Buffer.from('{"ids":[1],"at":1}').toString('base64url')}`,
      `atelier-gen.${Buffer.from(JSON.stringify({ ids: Array(21).fill('t'), at: 1 })).toString('base64url')}`,
    ]) {
      assert.equal(decodeGenerationTaskId(bad), undefined, bad);
    }
  });

  it('maps the records: working while any runs, cancelled after a cancel, completed otherwise', () => {
    const ref = { taskIds: ['a', 'b'], createdAt: Date.UTC(2026, 0, 1) };
    const working = taskOfRecords('x', ref, [
      record({ status: 'completed', progress: 100 }),
      record({ status: 'in_progress', progress: 40 }),
    ]);
    assert.equal(working.status, 'working');
    assert.equal(working.statusMessage, '1 of 2 task(s) finished (70%)');
    assert.equal(working.createdAt, '2026-01-01T00:00:00.000Z');
    assert.equal(working.pollInterval, 2000);
    assert.equal(working.ttl, null);
    const cancelled = taskOfRecords('x', ref, [
      record({ status: 'completed', progress: 100 }),
      record({ status: 'failed', error: 'Canceled' }),
    ]);
    assert.equal(cancelled.status, 'cancelled');
    // Failed images are data in the result: the call itself completed.
    const failed = taskOfRecords('x', ref, [record({ status: 'failed', error: 'upstream refused' })]);
    assert.equal(failed.status, 'completed');
    assert.match(failed.statusMessage ?? '', /1 failed \(upstream refused\)/);
  });
});
