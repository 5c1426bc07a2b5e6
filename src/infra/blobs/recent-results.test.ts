import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BlobStore } from './blob-store.js';
import { withRecentResults } from './recent-results.js';

/** A store in memory that counts its reads. */
function countingStore() {
  const files = new Map<string, Buffer>();
  const reads: string[] = [];
  const store: BlobStore = {
    put: async (key, source) => void files.set(key, Buffer.isBuffer(source) ? source : Buffer.from('file')),
    get: async (key) => {
      reads.push(key);
      return files.get(key);
    },
    open: async () => undefined,
    stat: async () => undefined,
    delete: async (key) => void files.delete(key),
  };
  return { store, files, reads };
}

test('a result stored moments ago is read from memory; after 5 s, from the store', async () => {
  const { store, reads } = countingStore();
  let now = 1000;
  const blobs = withRecentResults(store, () => now);
  await blobs.put('results/t1.png', Buffer.from('png'), 'image/png');
  assert.deepEqual(await blobs.get('results/t1.png'), Buffer.from('png'));
  assert.deepEqual(reads, []);
  now += 5001;
  assert.deepEqual(await blobs.get('results/t1.png'), Buffer.from('png'));
  assert.deepEqual(reads, ['results/t1.png']);
});

test('uploads are not kept, and a delete forgets a kept result', async () => {
  const { store, reads } = countingStore();
  const blobs = withRecentResults(store, () => 0);
  await blobs.put('uploads/u1.png', Buffer.from('up'), 'image/png');
  await blobs.get('uploads/u1.png');
  assert.deepEqual(reads, ['uploads/u1.png']);
  await blobs.put('results/t2.png', Buffer.from('png'), 'image/png');
  await blobs.delete('results/t2.png');
  assert.equal(await blobs.get('results/t2.png'), undefined);
  assert.deepEqual(reads, ['uploads/u1.png', 'results/t2.png']);
});

test('past 32 MB the oldest kept results go first', async () => {
  const { store, reads } = countingStore();
  const blobs = withRecentResults(store, () => 0);
  const big = Buffer.alloc(12 * 1024 * 1024);
  for (const name of ['a', 'b', 'c']) await blobs.put(`results/${name}.png`, big, 'image/png');
  await blobs.get('results/b.png');
  await blobs.get('results/c.png');
  assert.deepEqual(reads, []);
  await blobs.get('results/a.png');
  assert.deepEqual(reads, ['results/a.png']);
});
