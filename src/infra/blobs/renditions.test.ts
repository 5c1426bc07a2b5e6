import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pngOfSize } from '../../../test/fakes/image-fixtures.js';
import { RateLimited } from '../../base/domain/errors.js';
import type { BlobStore } from './blob-store.js';
import { createRenditions } from './renditions.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Originals in memory, every one the same small PNG; `reads` lists the originals read, in order (a
 * first rendition reads its original once its slot is taken), and the first two reads wait for
 * `open` (the pool's two slots stay busy while the backlog lines up).
 */
function heldBlobs() {
  const png = pngOfSize(16, 16);
  const reads: string[] = [];
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const blobs: BlobStore = {
    put: async () => {},
    async get(key) {
      reads.push(key);
      if (reads.length <= 2) await opened;
      return png;
    },
    stat: async () => undefined,
    open: async () => undefined,
    delete: async () => {},
  };
  return { blobs, reads, open };
}

test('another client’s first rendition starts within a few turns behind one client’s backlog of 1,000', async () => {
  const { blobs, reads, open } = heldBlobs();
  const renditions = createRenditions({ blobs, caps: { concurrency: 2, queue: 1000 } });
  const backlog = Array.from({ length: 1000 }, (_, i) =>
    renditions.ensure(`results/heavy-${i}.png`, 160, 'webp', '203.0.113.7'),
  );
  await turn();
  const light = renditions.ensure('results/light.png', 160, 'webp', '198.51.100.9');
  await turn();
  const readBefore = reads.length;
  open();
  assert.equal(await light, 'renditions/w160/png/results/light.webp');
  // Heavy renditions that started after the light one was asked for and before it: its turn comes
  // after the one whose slot frees first (at most one more: the two slots free together).
  const heavyAhead = reads.indexOf('results/light.png') - readBefore;
  assert.ok(heavyAhead >= 0 && heavyAhead <= 2, `${heavyAhead} heavy renditions started ahead of it`);
  assert.equal((await Promise.all(backlog)).length, 1000);
});

test('a client whose waiting places are all taken is refused; another client is not', async () => {
  const { blobs, open } = heldBlobs();
  const renditions = createRenditions({ blobs, caps: { concurrency: 2, queue: 3 } });
  const heavy = Array.from({ length: 5 }, (_, i) => renditions.ensure(`results/h${i}.png`, 160, 'webp', 'a'));
  await turn();
  await assert.rejects(renditions.ensure('results/h5.png', 160, 'webp', 'a'), RateLimited);
  const light = renditions.ensure('results/l.png', 160, 'webp', 'b');
  open();
  assert.equal(await light, 'renditions/w160/png/results/l.webp');
  assert.equal((await Promise.all(heavy)).length, 5);
});
