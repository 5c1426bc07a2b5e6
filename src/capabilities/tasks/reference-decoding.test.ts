import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bmpOfSize } from '../../../test/fakes/image-fixtures.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import { createReferenceDecoding } from './reference-decoding.js';

test('another account’s reference is decoded within a few turns behind one account’s backlog of 1,000', async () => {
  // A BMP: decoding it is real libvips work (it is re-encoded as PNG), on libuv's threads.
  const bmp = bmpOfSize(64, 64, { bitCount: 24 });
  const blobs: BlobStore = {
    put: async () => {},
    get: async () => bmp,
    stat: async () => undefined,
    open: async () => undefined,
    delete: async () => {},
  };
  const decoding = createReferenceDecoding({ blobs });
  const done: string[] = [];
  const load = (account: string, key: string) =>
    decoding.load(account, [key]).then((loaded) => {
      assert.notEqual(typeof loaded, 'string', String(loaded));
      done.push(key);
    });
  // The backlog's steps all ask at one instant (a worker runs 2,000 at once), the light one just after.
  const backlog = Array.from({ length: 1000 }, (_, i) => load('acc_heavy', `uploads/heavy-${i}.bmp`));
  await load('acc_light', 'uploads/light.bmp');
  // Counted in decodes, not time: of the backlog, those that ended before the light account's —
  // the two under way and at most one more turn (before, every decode went to libuv's one
  // first-come line at once, and the light one ended after the whole backlog).
  const heavyAhead = done.indexOf('uploads/light.bmp');
  assert.ok(heavyAhead <= 4, `${heavyAhead} of the backlog were decoded ahead of it`);
  await Promise.all(backlog);
  assert.equal(done.length, 1001);
});
