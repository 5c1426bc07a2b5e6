import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BlobStore } from '../../src/infra/blobs/blob-store.js';
import { createDiskBlobStore } from '../../src/infra/blobs/disk-blob-store.js';
import { RENDITION_FORMATS, RENDITION_WIDTHS, RENDITIONS_PREFIX } from '../../src/infra/blobs/renditions.js';
import { assertError, bearer, makePng } from '../support/api-helpers.js';
import { compareWithIdle, eventually } from '../support/latency.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/** Uploads a PNG and answers its /files path. */
async function upload(t: TestApp, apiKey: string, png: Buffer): Promise<string> {
  const answer = await t.app.inject({
    method: 'POST',
    url: '/api/v1/upload',
    headers: { ...bearer(apiKey), 'content-type': 'image/png' },
    payload: png,
  });
  assert.equal(answer.statusCode, 200, answer.body);
  return new URL((answer.json() as { url: string }).url).pathname;
}

/**
 * Blobs on disk, watched: `originalReads` counts reads of originals (a rendition being made reads
 * its original just before encoding), and while `gate` is set those reads wait for it.
 */
function watchedDiskBlobs(root: string) {
  const disk = createDiskBlobStore({ root });
  const watch = { originalReads: 0, renditionStats: 0, gate: undefined as Promise<void> | undefined };
  const blobs: BlobStore = {
    ...disk,
    put: disk.put.bind(disk),
    open: disk.open.bind(disk),
    delete: disk.delete.bind(disk),
    async get(key) {
      watch.originalReads++;
      if (watch.gate) await watch.gate;
      return disk.get(key);
    },
    async stat(key) {
      const stat = await disk.stat(key);
      if (key.startsWith(RENDITIONS_PREFIX)) watch.renditionStats++;
      return stat;
    },
  };
  return { blobs, watch };
}

/** Every rendition URL of one original (widths × formats): each is a first-time rendition once. */
const everyRendition = (path: string) =>
  RENDITION_WIDTHS.flatMap((w) => RENDITION_FORMATS.map((format) => `${path}?w=${w}&format=${format}`));

describe('first-time renditions run on their own bounded pool (issue 25, item 9)', () => {
  let t: TestApp;
  let root: string;
  let apiKey: string;
  let watch: ReturnType<typeof watchedDiskBlobs>['watch'];
  let openGate = () => {};

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'atelier-renditions-'));
    const watched = watchedDiskBlobs(root);
    watch = watched.watch;
    const blobs = watched.blobs;
    t = await createTestApp({
      env: { ATELIER_RENDITION_CONCURRENCY: '1', ATELIER_RENDITION_QUEUE: '2' },
      overrides: { blobs },
    });
    ({ apiKey } = await t.createAccount());
  });
  after(async () => {
    await t?.close();
    await rm(root, { recursive: true, force: true });
  });

  test('past the running one and the queue, a first rendition is 429 with Retry-After; then it works', async () => {
    const path = await upload(t, apiKey, await makePng(800, 600));
    const [first, second, third, fourth] = everyRendition(path);
    // While closed, reading an original for a rendition waits (the encoding slot stays taken).
    watch.gate = new Promise((resolve) => {
      openGate = resolve;
    });
    const statsBefore = watch.renditionStats;
    const admitted = [first, second, third].map((url) => t.app.inject({ method: 'GET', url: url ?? '' }));
    // All three looked for a kept rendition, found none, and took the slot or a waiting place.
    await eventually(() => watch.renditionStats === statsBefore + 3);
    const refused = await t.app.inject({ method: 'GET', url: fourth ?? '' });
    assertError(refused, 429, 'too_many_requests');
    assert.equal(refused.headers['retry-after'], '2');
    watch.gate = undefined;
    openGate();
    for (const answer of await Promise.all(admitted)) assert.equal(answer.statusCode, 200, answer.body);
    const retried = await t.app.inject({ method: 'GET', url: fourth ?? '' });
    assert.equal(retried.statusCode, 200, retried.body);
    // A kept rendition never waits for the pool, even while it is full.
    assert.equal((await t.app.inject({ method: 'GET', url: first ?? '' })).statusCode, 200);
  });
});

describe('renditions at their cap leave image serving fast (issue 25, item 9, measured)', () => {
  let t: TestApp;
  let root: string;
  let apiKey: string;
  let watch: ReturnType<typeof watchedDiskBlobs>['watch'];

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'atelier-renditions-'));
    const watched = watchedDiskBlobs(root);
    watch = watched.watch;
    // The defaults: 2 at once, 32 waiting.
    t = await createTestApp({ listen: true, overrides: { blobs: watched.blobs } });
    ({ apiKey } = await t.createAccount());
  });
  after(async () => {
    await t?.close();
    await rm(root, { recursive: true, force: true });
  });

  test("another account's image is served within a small factor of idle while renditions are queued", async () => {
    const other = await t.createAccount();
    const served = `${t.baseUrl}${await upload(t, other.apiKey, await makePng(320, 240, { r: 10, g: 20, b: 30 }))}`;
    const getImage = async () => {
      const answer = await fetch(served);
      assert.equal(answer.status, 200);
      await answer.arrayBuffer();
    };
    let images = 0;
    const trials = await compareWithIdle({
      label: 'image latency, renditions at their cap',
      request: getImage,
      samples: 15,
      factor: 25,
      startLoad: async () => {
        // Two new 16-megapixel images each trial (a kept rendition is not made again), asked for in
        // every width and format at once: 36 first-time renditions.
        const big = await upload(t, apiKey, await makePng(4000, 4000, { r: 200, g: 80, b: images++ }));
        const big2 = await upload(t, apiKey, await makePng(4000, 4000, { r: 1, g: 2, b: images++ }));
        let finished = false;
        const readsBefore = watch.originalReads;
        const flood = Promise.all(
          [...everyRendition(big), ...everyRendition(big2)].map((url) =>
            fetch(`${t.baseUrl}${url}`).then(async (answer) => {
              await answer.arrayBuffer();
              return answer.status;
            }),
          ),
        ).finally(() => {
          finished = true;
        });
        // Measured once two renditions are being made (their originals read, their encoding next).
        await eventually(() => watch.originalReads >= readsBefore + 2);
        return async () => ({ measuredUnderLoad: !finished, statuses: await flood });
      },
    });
    for (const { load } of trials) {
      assert.ok(load.measuredUnderLoad, 'measured while the renditions were still being made');
      assert.ok(load.statuses.every((status) => status === 200 || status === 429));
      assert.ok(load.statuses.includes(429), 'the flood reached the cap');
    }
  });
});
