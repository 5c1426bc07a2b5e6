import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomIds } from './ids.js';

test('ids are prefixed, 128 random bits in URL-safe base64, and never repeat across batches', () => {
  const seen = new Set<string>();
  // Several of the 4,096-byte batches the bytes are drawn in.
  for (let i = 0; i < 2_000; i++) {
    const id = randomIds.next('tsk');
    assert.match(id, /^tsk_[A-Za-z0-9_-]{22}$/);
    seen.add(id);
  }
  assert.equal(seen.size, 2_000);
});
