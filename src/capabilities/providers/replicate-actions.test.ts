import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import sharp from 'sharp';
import { type FakeReplicate, startFakeReplicate } from '../../../test/fakes/providers/fake-replicate.js';
import { alphaCounts, dataUrlBytes, subjectPng } from '../../../test/fakes/providers/image-tools.js';
import { assertFailed, assertPending } from '../../../test/fakes/providers/provider-outcomes.js';
import { providerRequest, referenceImage } from '../../../test/fakes/providers/provider-request.js';
import { MODELS, TOKEN } from '../../../test/fakes/providers/replicate-test-models.js';
import type { ImageProvider, ProviderRequest } from './provider.js';
import { createReplicateProvider } from './replicate-provider.js';

/** Polls until the prediction ends; the output's bytes. */
async function finish(
  provider: ImageProvider,
  request: ProviderRequest,
  upstreamId: string,
): Promise<Buffer> {
  for (let i = 0; i < 10; i++) {
    const outcome = await provider.poll({ ...request, upstreamId });
    if (outcome.kind === 'done') {
      assert.ok('url' in outcome.image);
      return Buffer.from(await (await fetch(outcome.image.url)).arrayBuffer());
    }
    assert.equal(outcome.kind, 'pending');
  }
  throw new Error('the prediction never ended');
}

describe('replicate provider: actions and seeds', () => {
  let fake: FakeReplicate;
  before(async () => {
    fake = await startFakeReplicate({ token: TOKEN, models: MODELS });
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.predictions.length = 0;
    fake.creates.length = 0;
  });
  const provider = () => createReplicateProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 10_000 });
  const lastInput = () => (fake.creates.at(-1)?.body.input ?? {}) as Record<string, unknown>;

  test("an upscale sends the picked image and the factor as real-esrgan's image and scale", async () => {
    const picked = await referenceImage(40, 24);
    const request = providerRequest({
      upstreamModel: 'nightmareai/real-esrgan',
      apiKey: TOKEN,
      mode: 'edit',
      references: [picked],
      action: { name: 'upscale', scale: 4 },
      width: 160,
      height: 96,
    });
    const p = provider();
    const submitted = await p.submit(request);
    assertPending(submitted);
    assert.deepEqual(Object.keys(lastInput()).sort(), ['image', 'scale']);
    assert.equal(lastInput().scale, 4);
    assert.deepEqual(dataUrlBytes(lastInput().image), picked.bytes);
    const output = await finish(p, request, submitted.upstreamId);
    const { width, height } = await sharp(output).metadata();
    assert.deepEqual([width, height], [160, 96]);
  });

  test('a background remover gets the image alone and answers a PNG with a transparent background', async () => {
    const bytes = await subjectPng(48, 32);
    const request = providerRequest({
      upstreamModel: '851-labs/background-remover',
      apiKey: TOKEN,
      mode: 'edit',
      prompt: 'a red square',
      references: [{ bytes, contentType: 'image/png', width: 48, height: 32 }],
      action: { name: 'remove_background' },
    });
    const p = provider();
    const submitted = await p.submit(request);
    assertPending(submitted);
    assert.deepEqual(Object.keys(lastInput()), ['image']);
    const alpha = await alphaCounts(await finish(p, request, submitted.upstreamId));
    assert.equal(alpha.channels, 4);
    assert.ok(alpha.transparent > 0 && alpha.opaque > 0, JSON.stringify(alpha));
  });

  test("an action's route whose model lacks the input it needs fails naming it, creating nothing", async () => {
    const picked = await referenceImage(16, 16);
    const upscale = { mode: 'edit' as const, references: [picked], apiKey: TOKEN };
    const noScale = await provider().submit(
      providerRequest({
        ...upscale,
        upstreamModel: '851-labs/background-remover',
        action: { name: 'upscale', scale: 2 },
      }),
    );
    assertFailed(noScale);
    assert.match(noScale.message, /takes no scale input/);
    const prompted = await provider().submit(
      providerRequest({
        ...upscale,
        upstreamModel: 'google/nano-banana-pro',
        action: { name: 'upscale', scale: 2 },
      }),
    );
    assertFailed(prompted);
    assert.match(prompted.message, /takes no image input/);
    assert.equal(fake.creates.length, 0);
  });

  test("the request's seed is sent as the model's seed; out of the model's range it is refused", async () => {
    const seeded = providerRequest({ upstreamModel: 'acme/seeded-fusion', apiKey: TOKEN, seed: 123_456 });
    assertPending(await provider().submit(seeded));
    assert.equal(lastInput().seed, 123_456);
    // The same seed on another task is the same input seed (a repeat of the image).
    assertPending(await provider().submit({ ...seeded, taskId: 'tsk_other' }));
    assert.equal(lastInput().seed, 123_456);
    const tooBig = await provider().submit({ ...seeded, seed: 2_000_000 });
    assertFailed(tooBig);
    assert.match(tooBig.message, /takes seeds 0 to 1000000 only/);
    // A model without a seed input gets none, whatever the request says.
    assertPending(
      await provider().submit(
        providerRequest({ upstreamModel: 'google/nano-banana-pro', apiKey: TOKEN, seed: 7 }),
      ),
    );
    assert.equal('seed' in lastInput(), false);
  });

  /** A submit whose create reaches Replicate but whose answer never comes (the engine's deadline passes). */
  const submitLosingTheAnswer = async (request: ProviderRequest) => {
    fake.scriptCreate({ kind: 'hang-after-create' });
    const deadline = new AbortController();
    const hung = fake.nextHang();
    const outcome = provider().submit({ ...request, signal: deadline.signal });
    await hung;
    deadline.abort(new DOMException('the engine deadline passed', 'TimeoutError'));
    return outcome;
  };

  test("an image tool's lost create is made again, never adopting another task's upscale", async () => {
    const upscale = async (color: string) =>
      providerRequest({
        upstreamModel: 'nightmareai/real-esrgan',
        apiKey: TOKEN,
        mode: 'edit',
        references: [await referenceImage(16, 16, color)],
        action: { name: 'upscale', scale: 2 },
      });
    const lost = await upscale('#112233');
    assertFailed(await submitLosingTheAnswer(lost));
    // Another task upscales another image by the same factor: the same input apart from the file.
    assertPending(await provider().submit(await upscale('#ddeeff')));
    const other = fake.predictions[1]?.id;
    const retried = await provider().submit({ ...lost, reconcile: true });
    assertPending(retried);
    assert.notEqual(retried.upstreamId, other, "not the other task's prediction");
    assert.equal(fake.predictions.length, 3, 'created again');
    assert.deepEqual(dataUrlBytes(fake.predictions[2]?.input.image), lost.references[0]?.bytes);
  });

  test("a caller's seed repeated on another task: reconciling a lost create cancels no other task's prediction", async () => {
    const seeded = { upstreamModel: 'acme/seeded-fusion', apiKey: TOKEN, seed: 7 };
    const lost = providerRequest(seeded);
    // Task B's create reaches Replicate, its answer never comes back.
    assertFailed(await submitLosingTheAnswer(lost));
    // Task A asks exactly the same again (same prompt, same seed) in another worker.
    assertPending(await provider().submit(providerRequest(seeded)));
    assert.equal(fake.predictions.length, 2);
    // A fresh worker reconciles B: A's prediction has identical input, so it must not be canceled.
    assertPending(await provider().submit({ ...lost, reconcile: true }));
    assert.equal(fake.predictions.length, 2, 'no third prediction');
    assert.ok(
      fake.predictions.every((p) => !p.canceled),
      'nothing canceled',
    );
  });

  test('vary and expand arrive as ordinary edits: the prompt, the reference and the seed', async () => {
    const picked = await referenceImage(32, 32);
    const vary = providerRequest({
      upstreamModel: 'black-forest-labs/flux-kontext-pro',
      apiKey: TOKEN,
      mode: 'edit',
      references: [picked],
      action: { name: 'vary', strength: 'strong' },
      seed: 99,
    });
    assertPending(await provider().submit(vary));
    assert.equal(lastInput().prompt, 'a lighthouse at dawn');
    assert.equal(lastInput().seed, 99);
    assert.ok(typeof lastInput().input_image === 'string');
  });
});
