import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { type FakeFal, startFakeFal } from '../../../test/fakes/providers/fake-fal.js';
import { alphaCounts, dataUrlBytes, subjectPng } from '../../../test/fakes/providers/image-tools.js';
import { assertFailed, assertPending } from '../../../test/fakes/providers/provider-outcomes.js';
import { providerRequest, referenceImage } from '../../../test/fakes/providers/provider-request.js';
import { falEndpointsSchema } from './fal-inputs.js';
import { createFalProvider } from './fal-provider.js';
import type { ImageProvider, ProviderRequest } from './provider.js';

const KEY = 'fal-key-0123456789:abcdef';
const ENDPOINTS = falEndpointsSchema.parse({
  'fal-ai/clarity-upscaler': { size: 'image_size', references: 'image_url', scaleInput: 'upscale_factor' },
  'fal-ai/birefnet/v2': { references: 'image_url', seed: false, extraInput: { output_format: 'png' } },
  'fal-ai/ben/v2/image': { references: 'image_url' },
  'fal-ai/flux/dev': { size: 'image_size' },
});

/** Polls until the request ends; the result's bytes. */
async function finish(
  provider: ImageProvider,
  request: ProviderRequest,
  upstreamId: string,
): Promise<Buffer> {
  for (let i = 0; i < 20; i++) {
    const outcome = await provider.poll({ ...request, upstreamId });
    if (outcome.kind === 'done') {
      assert.ok('url' in outcome.image);
      return Buffer.from(await (await fetch(outcome.image.url)).arrayBuffer());
    }
    assert.equal(outcome.kind, 'pending', JSON.stringify(outcome));
  }
  throw new Error('the request never ended');
}

describe('fal provider: actions and seeds', () => {
  let fal: FakeFal;
  before(async () => {
    fal = await startFakeFal({ apiKey: KEY, endpoints: Object.keys(ENDPOINTS), queuePosition: 0 });
  });
  after(() => fal.close());
  const provider = () =>
    createFalProvider({ baseUrl: fal.baseUrl, endpoints: ENDPOINTS, requestTimeoutMs: 10_000 });
  const lastInput = () => fal.jobs.at(-1)?.input ?? {};

  test('an upscale sends image_url and the factor as upscale_factor; the answer has the scaled size', async () => {
    const picked = await referenceImage(30, 20);
    const request = providerRequest({
      upstreamModel: 'fal-ai/clarity-upscaler',
      apiKey: KEY,
      mode: 'edit',
      references: [picked],
      action: { name: 'upscale', scale: 2 },
      width: 60,
      height: 40,
      seed: 4242,
    });
    const p = provider();
    const submitted = await p.submit(request);
    assertPending(submitted);
    assert.deepEqual(Object.keys(lastInput()).sort(), ['image_url', 'seed', 'upscale_factor']);
    assert.equal(lastInput().upscale_factor, 2);
    assert.equal(lastInput().seed, 4242);
    assert.deepEqual(dataUrlBytes(lastInput().image_url), picked.bytes);
    const { width, height } = await sharp(await finish(p, request, submitted.upstreamId)).metadata();
    assert.deepEqual([width, height], [60, 40]);
  });

  test('a background remover gets image_url (and its extra input) only; the answer is a PNG with alpha', async () => {
    const bytes = await subjectPng(40, 40);
    const request = providerRequest({
      upstreamModel: 'fal-ai/birefnet/v2',
      apiKey: KEY,
      mode: 'edit',
      references: [{ bytes, contentType: 'image/png', width: 40, height: 40 }],
      action: { name: 'remove_background' },
      seed: 5,
    });
    const p = provider();
    const submitted = await p.submit(request);
    assertPending(submitted);
    assert.deepEqual(Object.keys(lastInput()).sort(), ['image_url', 'output_format']);
    const alpha = await alphaCounts(await finish(p, request, submitted.upstreamId));
    assert.equal(alpha.channels, 4);
    assert.ok(alpha.transparent > 0 && alpha.opaque > 0, JSON.stringify(alpha));
    // BEN2 (the shipped catalog's remover) takes a seed as well: the request's.
    const ben = { ...request, upstreamModel: 'fal-ai/ben/v2/image', taskId: 'tsk_ben' };
    const benSubmitted = await p.submit(ben);
    assertPending(benSubmitted);
    assert.deepEqual(lastInput().seed, 5);
    assert.deepEqual(Object.keys(lastInput()).sort(), ['image_url', 'seed']);
    assert.equal((await alphaCounts(await finish(p, ben, benSubmitted.upstreamId))).channels, 4);
  });

  test('an upscale on an endpoint with no scaleInput fails naming the fix, sending nothing', async () => {
    const jobs = fal.jobs.length;
    const outcome = await provider().submit(
      providerRequest({
        upstreamModel: 'fal-ai/birefnet/v2',
        apiKey: KEY,
        mode: 'edit',
        references: [await referenceImage(16, 16)],
        action: { name: 'upscale', scale: 4 },
      }),
    );
    assertFailed(outcome);
    assert.match(outcome.message, /no scaleInput/);
    assert.equal(fal.jobs.length, jobs);
  });

  test("a generation's seed is the request's seed", async () => {
    assertPending(
      await provider().submit(providerRequest({ upstreamModel: 'fal-ai/flux/dev', apiKey: KEY, seed: 77 })),
    );
    assert.equal(lastInput().seed, 77);
    assert.equal(lastInput().prompt, 'a lighthouse at dawn');
  });
});
