import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TaskCard } from '../../lib/types.js';
import { groupBatches, isCancelled, requestOf } from './batches.js';

const card = (over: Partial<TaskCard>): TaskCard =>
  ({
    task_id: 't',
    status: 'completed',
    progress: 100,
    generation_id: 'g1',
    source: 'web',
    prompt: 'a fox',
    model: 'm',
    mode: 'generate',
    aspect: '1:1',
    imageSize: '1K',
    index: 0,
    count: 1,
    createdAt: 1,
    ...over,
  }) as TaskCard;

describe('batches', () => {
  test('one batch per generation, its cards in task order, keyed by its first task', () => {
    const batches = groupBatches([
      card({ task_id: 'b2', generation_id: 'g2', index: 1, imageUrl: '/b2.png' }),
      card({ task_id: 'b1', generation_id: 'g2', index: 0, status: 'in_progress' }),
      card({ task_id: 'a1', generation_id: 'g1', imageUrl: '/a1.png' }),
    ]);
    assert.deepEqual(
      batches.map((b) => [b.key, b.cards.map((c) => c.task_id)]),
      [
        ['b1', ['b1', 'b2']],
        ['a1', ['a1']],
      ],
    );
    assert.equal(batches[0]?.running, 1);
    assert.deepEqual(
      batches[0]?.completed.map((c) => c.task_id),
      ['b2'],
    );
  });

  test('cards just submitted (no generation id) group by their submit: instant and prompt', () => {
    const batches = groupBatches([
      card({ task_id: 'x0', generation_id: '', createdAt: 5, prompt: 'p', status: 'queued' }),
      card({ task_id: 'x1', generation_id: '', createdAt: 5, prompt: 'p', index: 1, status: 'queued' }),
      card({ task_id: 'y0', generation_id: '', createdAt: 5, prompt: 'q', status: 'queued' }),
    ]);
    assert.deepEqual(
      batches.map((b) => b.cards.length),
      [2, 1],
    );
  });

  test('a cancel is not a failure; a failure with its own error is', () => {
    const cancelled = card({ task_id: 'c', status: 'failed', error: 'Canceled' });
    const failed = card({ task_id: 'f', status: 'failed', error: 'upstream said no', index: 1 });
    assert.equal(isCancelled(cancelled), true);
    assert.equal(isCancelled(failed), false);
    const [batch] = groupBatches([cancelled, failed]);
    assert.deepEqual(
      batch?.failed.map((c) => c.task_id),
      ['f'],
    );
    assert.deepEqual(
      batch?.cancelled.map((c) => c.task_id),
      ['c'],
    );
    assert.equal(batch?.running, 0);
  });

  test("the batch's request again: its first card's settings and references, `count` images", () => {
    const [batch] = groupBatches([card({ count: 4, refs: ['/r.png'] })]);
    assert.ok(batch);
    assert.deepEqual(requestOf(batch), {
      prompt: 'a fox',
      model: 'm',
      mode: 'generate',
      aspect: '1:1',
      imageSize: '1K',
      count: 4,
      imageUrls: ['/r.png'],
    });
    assert.equal(requestOf(batch, 1).count, 1);
  });
});
