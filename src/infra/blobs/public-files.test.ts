import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidInput, NotFound } from '../../base/domain/errors.js';
import type { BlobStat, BlobStore } from './blob-store.js';
import { createPublicFiles } from './public-files.js';

const stat: BlobStat = { bytes: 3, contentType: 'image/png', etag: '"e"', modifiedAt: 0 };

/** A store holding one file, results/t.png, that presigns URLs of what it holds. */
const store: BlobStore = {
  put: async () => {},
  get: async () => undefined,
  delete: async () => {},
  stat: async (key) => (key === 'results/t.png' ? stat : undefined),
  open: async () => undefined,
  signedUrl: async (key) => (key === 'results/t.png' ? `https://bucket.example/${key}` : undefined),
};

test('a file that does not exist is NotFound, whatever asks', async () => {
  const files = createPublicFiles({ blobs: store });
  assert.deepEqual(await files.stat('results/t.png'), stat);
  assert.equal(await files.signedUrl('results/t.png', 60), 'https://bucket.example/results/t.png');
  for (const ask of [
    () => files.stat('results/none.png'),
    () => files.open('results/t.png'),
    () => files.signedUrl('results/none.png', 60),
    () => files.keyToServe('../etc/passwd', 320),
  ]) {
    await assert.rejects(ask, (error) => error instanceof NotFound && error.message === 'File not found');
  }
});

test('a rendition is not resized again, and format needs a width', async () => {
  const files = createPublicFiles({ blobs: store });
  assert.equal(await files.keyToServe('results/t.png'), 'results/t.png');
  await assert.rejects(() => files.keyToServe('results/t.png', undefined, 'webp'), InvalidInput);
  await assert.rejects(() => files.keyToServe('renditions/results/t.320.webp', 320), InvalidInput);
});
