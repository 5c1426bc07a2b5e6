import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { solidGif } from '../../../test/fakes/providers/fake-http.js';
import { type FakeReplicate, startFakeReplicate } from '../../../test/fakes/providers/fake-replicate.js';
import { assertFailed, assertPending } from '../../../test/fakes/providers/provider-outcomes.js';
import { providerRequest, referenceImage } from '../../../test/fakes/providers/provider-request.js';
import { MODELS, PINNED, TOKEN } from '../../../test/fakes/providers/replicate-test-models.js';
import type { PollOutcome, ProviderRequest } from './provider.js';
import { seedForTask } from './replicate-inputs.js';
import { createReplicateProvider } from './replicate-provider.js';

describe('replicate provider', () => {
  let fake: FakeReplicate;
  before(async () => {
    fake = await startFakeReplicate({ token: TOKEN, models: MODELS });
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.predictions.length = 0;
    fake.creates.length = 0;
  });

  const provider = (options: Parameters<typeof createReplicateProvider>[0] = {}) =>
    createReplicateProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 10_000, ...options });
  const request = (overrides: Partial<ProviderRequest> = {}) =>
    providerRequest({ upstreamModel: 'google/nano-banana-pro', apiKey: TOKEN, ...overrides });
  const poll = (p: ReturnType<typeof provider>, req: ProviderRequest, upstreamId: string) =>
    p.poll({ ...req, upstreamId });

  test('text: starting → processing → succeeded, with the output handed over as a URL', async () => {
    const p = provider();
    const req = request({ aspect: '16:9', imageSize: '2K' });
    const submitted = await p.submit(req);
    assertPending(submitted);
    assert.deepEqual(fake.creates[0], {
      path: '/v1/models/google/nano-banana-pro/predictions',
      body: { input: { prompt: 'a lighthouse at dawn', aspect_ratio: '16:9', resolution: '2K' } },
    });
    assert.equal(fake.predictions[0]?.id, submitted.upstreamId);

    const processing = await poll(p, req, submitted.upstreamId);
    assert.equal(processing.kind, 'pending');
    assert.ok(processing.kind === 'pending' && processing.status === 'in_progress');

    const done = await poll(p, req, submitted.upstreamId);
    assert.equal(done.kind, 'done');
    assert.ok(done.kind === 'done' && 'url' in done.image);
    const response = await fetch(done.image.url);
    assert.equal(response.headers.get('content-type'), 'image/png');
  });

  const lastInput = () => (fake.creates.at(-1)?.body.input ?? {}) as Record<string, unknown>;

  test('an edit without a named aspect asks for match_input_image where the model offers it', async () => {
    const reference = await referenceImage(120, 40);
    const edit = {
      mode: 'edit' as const,
      references: [reference],
      keepReferenceAspect: true,
      aspect: '21:9',
    };
    assertPending(await provider().submit(request(edit)));
    assert.equal(lastInput().aspect_ratio, 'match_input_image');
    // A model without that value gets the catalog ratio nearest the reference.
    const seeded = { ...edit, upstreamModel: 'acme/seeded-fusion', aspect: '16:9' };
    assertPending(await provider().submit(request(seeded)));
    assert.equal(lastInput().aspect_ratio, '16:9');
    // A named aspect is sent as named.
    assertPending(await provider().submit(request({ ...edit, keepReferenceAspect: false, aspect: '4:3' })));
    assert.equal(lastInput().aspect_ratio, '4:3');
  });

  test('starting is reported as queued; logs with a percentage give progress', async () => {
    fake.scriptLifecycle({
      statuses: ['starting', 'starting', 'processing'],
      logs: 'loading\n 10%|█ \n 42%|████ ',
    });
    const p = provider();
    const req = request();
    const submitted = await p.submit(req);
    assertPending(submitted);
    assert.deepEqual(await poll(p, req, submitted.upstreamId), { kind: 'pending', status: 'queued' });
    assert.deepEqual(await poll(p, req, submitted.upstreamId), {
      kind: 'pending',
      status: 'in_progress',
      progress: 42,
    });
  });

  test('edit on a single-image model: input_image as a data URL, and a seed derived from the task', async () => {
    const reference = await referenceImage();
    const req = request({
      upstreamModel: 'black-forest-labs/flux-kontext-pro',
      mode: 'edit',
      references: [reference],
    });
    assertPending(await provider().submit(req));
    const input = fake.creates[0]?.body.input as Record<string, unknown>;
    assert.equal(input.input_image, `data:image/png;base64,${reference.bytes.toString('base64')}`);
    assert.equal(input.seed, seedForTask(req.taskId));
    assert.equal(input.aspect_ratio, '1:1');
    assert.deepEqual(Object.keys(input).sort(), ['aspect_ratio', 'input_image', 'prompt', 'seed']);
  });

  test('fusion: image_input array, a GIF converted to PNG', async () => {
    const gif = { bytes: await solidGif(30, 30), contentType: 'image/gif', width: 30, height: 30 };
    const req = request({ mode: 'fusion', references: [await referenceImage(), gif] });
    assertPending(await provider().submit(req));
    const input = fake.creates[0]?.body.input as Record<string, unknown> | undefined;
    const images = input?.image_input as string[];
    assert.equal(images.length, 2);
    assert.ok(images.every((url) => url.startsWith('data:image/png;base64,')));
  });

  test('a pinned version goes to POST /v1/predictions with the version', async () => {
    assertPending(await provider().submit(request({ upstreamModel: `acme/pinned:${PINNED}` })));
    assert.deepEqual(fake.creates[0], {
      path: '/v1/predictions',
      body: { version: PINNED, input: { prompt: 'a lighthouse at dawn', aspect_ratio: '1:1' } },
    });
  });

  test('requests the model cannot express fail before any create, naming the catalog fix', async () => {
    const cases: Array<[Partial<ProviderRequest>, RegExp]> = [
      [{ upstreamModel: 'black-forest-labs/flux-kontext-pro', imageSize: '2K' }, /sizes \["1K"\]/],
      [{ upstreamModel: 'acme/seeded-fusion', aspect: '3:2' }, /does not take aspect 3:2/],
      [{ upstreamModel: 'black-forest-labs/flux-kontext-pro', mode: 'fusion' }, /cannot do fusion/],
      [{ upstreamModel: `acme/pinned:${PINNED}`, mode: 'edit' }, /cannot edit/],
      [{ upstreamModel: 'not a model' }, /not a model reference/],
    ];
    for (const [overrides, message] of cases) {
      const references = overrides.mode ? [await referenceImage(), await referenceImage()] : [];
      const outcome = await provider().submit(request({ references, ...overrides }));
      assertFailed(outcome);
      assert.equal(outcome.retryable, false);
      assert.match(outcome.message, message);
    }
    assert.equal(fake.creates.length, 0);
  });

  test('an unknown model is a final failure', async () => {
    const outcome = await provider().submit(request({ upstreamModel: 'nobody/nothing' }));
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.match(outcome.message, /not found/);
  });

  test('a prediction that fails for safety is a final, blocked failure saying so', async () => {
    fake.scriptLifecycle({
      statuses: ['starting', 'failed'],
      error: 'NSFW content detected. Try a different prompt.',
    });
    const p = provider();
    const req = request();
    const submitted = await p.submit(req);
    assertPending(submitted);
    const outcome = await poll(p, req, submitted.upstreamId);
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(outcome.cause, 'blocked');
    assert.match(outcome.message, /safety checker refused/);
  });

  test('canceled, aborted and data_removed predictions end the task', async () => {
    fake.scriptLifecycle(
      { statuses: ['starting', 'canceled'] },
      { statuses: ['starting', 'aborted'] },
      {
        statuses: ['starting', 'succeeded'],
        dataRemoved: true,
      },
    );
    const p = provider();
    for (const pattern of [/canceled upstream/, /deadline/, /already deleted/]) {
      const req = request();
      const submitted = await p.submit(req);
      assertPending(submitted);
      const outcome = await poll(p, req, submitted.upstreamId);
      assertFailed(outcome);
      assert.equal(outcome.retryable, false);
      assert.match(outcome.message, pattern);
    }
  });

  test('a multi-output model: the first URL of the list is the result', async () => {
    fake.scriptLifecycle({ statuses: ['starting', 'succeeded'], outputShape: 'list' });
    const p = provider();
    const req = request();
    const submitted = await p.submit(req);
    assertPending(submitted);
    const done = await poll(p, req, submitted.upstreamId);
    assert.ok(
      done.kind === 'done' && 'url' in done.image && done.image.url.endsWith(`${submitted.upstreamId}.png`),
    );
  });

  test('a bad token is a final failure and never echoed', async () => {
    const wrong = 'r8_wrongToken9876543210zyxwvu';
    const outcome = await provider().submit(request({ apiKey: wrong }));
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(outcome.cause, 'unauthorized');
    assert.ok(!outcome.message.includes(wrong));
  });

  test('429 on create is retryable with Retry-After', async () => {
    fake.scriptCreate({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '2' },
      json: { detail: 'Request was throttled. Expected available in 2 seconds.', status: 429 },
    });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, true);
    assert.equal(outcome.retryAfterMs, 2000);
    assert.equal(outcome.cause, 'rate_limited');
    assert.match(outcome.message, /rate limited by the upstream \(HTTP 429\)/);
  });

  test('402 (spend limit) is final', async () => {
    fake.scriptCreate({
      kind: 'error',
      status: 402,
      json: { detail: 'Monthly spend limit reached', status: 402 },
    });
    const outcome = await provider().submit(request());
    assertFailed(outcome);
    assert.equal(outcome.retryable, false);
    assert.equal(outcome.cause, 'quota_exhausted');
  });

  test('500 is retryable and "maybe accepted"; the next submit finds nothing and creates one', async () => {
    fake.scriptCreate({ kind: 'error', status: 500, json: { detail: 'Internal server error', status: 500 } });
    const p = provider();
    const req = request();
    const first = await p.submit(req);
    assertFailed(first);
    assert.equal(first.retryable, true);
    assert.equal(first.maybeAccepted, true);
    assertPending(await p.submit({ ...req, reconcile: true }));
    assert.equal(fake.predictions.length, 1);
  });

  for (const status of [500, 503]) {
    test(`a ${status} that came after the prediction was created: exactly one prediction`, async () => {
      const createdBefore = fake.predictions.length;
      fake.scriptCreate({ kind: 'error-after-create', status, json: { detail: 'upstream error', status } });
      const p = provider();
      const req = request({ upstreamModel: 'black-forest-labs/flux-kontext-pro' });
      const first = await p.submit(req);
      assertFailed(first);
      assert.equal(first.maybeAccepted, true);
      // A fresh adapter (another worker) with the engine's flag, and this one from its own memory.
      const again = await provider().submit({ ...req, reconcile: true });
      assertPending(again);
      const mine = await p.submit(req);
      assertPending(mine);
      assert.equal(fake.predictions.length, createdBefore + 1);
      assert.equal(again.upstreamId, fake.predictions.at(-1)?.id);
      assert.equal(mine.upstreamId, again.upstreamId);
    });
  }

  test('poll errors are retryable and never limit retries as "maybe accepted"', async () => {
    const p = provider();
    const req = request();
    const submitted = await p.submit(req);
    assertPending(submitted);
    fake.scriptPoll(
      { kind: 'hang' },
      { kind: 'malformed' },
      { kind: 'error', status: 503, json: { detail: 'busy' } },
    );
    // The hung poll ends when the engine's deadline passes, right after the fake took the request.
    const deadline = new AbortController();
    const hung = fake.nextHang();
    const timedOut = poll(p, { ...req, signal: deadline.signal }, submitted.upstreamId);
    await hung;
    deadline.abort(new DOMException('the engine deadline passed', 'TimeoutError'));
    for (const cause of ['timeout', 'bad_response', 'upstream_error']) {
      const outcome: PollOutcome =
        cause === 'timeout' ? await timedOut : await poll(p, req, submitted.upstreamId);
      assertFailed(outcome);
      assert.equal(outcome.retryable, true);
      assert.equal(outcome.cause, cause);
      assert.ok(!outcome.maybeAccepted);
    }
    assert.equal((await poll(p, req, submitted.upstreamId)).kind, 'pending');
  });

  test('cancel asks Replicate to cancel the prediction', async () => {
    const p = provider();
    const req = request();
    const submitted = await p.submit(req);
    assertPending(submitted);
    await p.cancel?.({
      upstreamId: submitted.upstreamId,
      apiKey: TOKEN,
      signal: new AbortController().signal,
    });
    assert.equal(fake.predictions[0]?.canceled, true);
  });
});
