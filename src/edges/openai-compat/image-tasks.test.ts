import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ImageTaskRef, imageTaskId, imageTaskRef, imageTaskSeal, prefersAsync } from './image-tasks.js';

const seal = imageTaskSeal(Buffer.alloc(32, 3), 'acc_one');

describe('asynchronous OpenAI image requests: ids and the Prefer header', () => {
  const ref: ImageTaskRef = {
    kind: 'edit',
    created: 1_795_300_990,
    responseFormat: 'b64_json',
    ids: ['tsk_4f9c2a7e1b3d5c6a8e0f-_x', 'tsk_9a8b7c6d5e4f3a2b1c0d'],
  };

  test('an id carries its kind, created, response_format and task ids, and reads back', () => {
    const id = imageTaskId(ref, seal);
    assert.match(id, /^imgtask_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(imageTaskRef(id, seal), ref);
    // Issued to another account, or altered: not an id of ours.
    assert.equal(imageTaskRef(id, imageTaskSeal(Buffer.alloc(32, 3), 'acc_two')), undefined);
    const [contents = '', tag = ''] = id.slice('imgtask_'.length).split('.');
    const other = Buffer.from(JSON.stringify([1, 'e', 1, 'url', ...ref.ids])).toString('base64url');
    assert.notEqual(other, contents);
    assert.equal(imageTaskRef(`imgtask_${other}.${tag}`, seal), undefined);
  });

  test('anything imageTaskId did not make reads as no id (sealed or not)', () => {
    const encode = (fields: unknown) => {
      const contents = Buffer.from(JSON.stringify(fields)).toString('base64url');
      return `imgtask_${contents}.${seal(contents)}`;
    };
    assert.equal(
      imageTaskRef(
        `imgtask_${Buffer.from(JSON.stringify([1, 'g', 1, 'url', 'tsk_a'])).toString('base64url')}`,
        seal,
      ),
      undefined,
    );
    for (const id of [
      'tsk_4f9c2a7e1b3d5c6a8e0f',
      'imgtask_',
      'imgtask_%%%',
      encode({ ids: ['tsk_a'] }),
      encode([2, 'g', 1, 'url', 'tsk_a']),
      encode([1, 'x', 1, 'url', 'tsk_a']),
      encode([1, 'g', 1.5, 'url', 'tsk_a']),
      encode([1, 'g', 1, 'jpeg', 'tsk_a']),
      encode([1, 'g', 1, 'url']),
      encode([1, 'g', 1, 'url', 'tsk a']),
      encode([1, 'g', 1, 'url', ...Array.from({ length: 65 }, (_, i) => `tsk_${i}`)]),
    ]) {
      assert.equal(imageTaskRef(id, seal), undefined, id);
    }
  });

  test('Prefer: respond-async among other preferences, any case, on any line (RFC 7240)', () => {
    assert.equal(prefersAsync('respond-async'), true);
    assert.equal(prefersAsync('wait=10, Respond-Async'), true);
    assert.equal(prefersAsync('respond-async; foo=bar'), true);
    assert.equal(prefersAsync(['return=minimal', 'respond-async']), true);
    assert.equal(prefersAsync(undefined), false);
    assert.equal(prefersAsync('return=representation'), false);
    assert.equal(prefersAsync('respond-asynchronously'), false);
  });
});
