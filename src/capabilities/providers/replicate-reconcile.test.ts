import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, describe, test } from 'node:test';
import { type FakeReplicate, startFakeReplicate } from '../../../test/fakes/providers/fake-replicate.js';
import { assertFailed, assertPending } from '../../../test/fakes/providers/provider-outcomes.js';
import { providerRequest, referenceImage } from '../../../test/fakes/providers/provider-request.js';
import { MODELS, PINNED, TOKEN } from '../../../test/fakes/providers/replicate-test-models.js';
import { parseCatalog } from '../catalog/index.js';
import type { ImageProvider, ProviderRequest } from './provider.js';
import { seedForTask } from './replicate-inputs.js';
import { createReplicateProvider } from './replicate-provider.js';

describe('replicate reconciliation: never a second prediction for one task', () => {
  let fake: FakeReplicate;
  before(async () => {
    fake = await startFakeReplicate({ token: TOKEN, models: MODELS, pageSize: 2 });
  });
  after(() => fake.close());
  beforeEach(() => {
    fake.predictions.length = 0;
    fake.creates.length = 0;
  });

  // A generous per-call limit: a loaded machine must not turn an ordinary call into a timeout.
  const provider = () => createReplicateProvider({ baseUrl: fake.baseUrl });
  const request = (overrides: Partial<ProviderRequest> = {}) =>
    providerRequest({ upstreamModel: 'acme/seeded-fusion', apiKey: TOKEN, ...overrides });
  /**
   * A submit whose create reaches Replicate but whose answer never comes: once the fake has made
   * the prediction, the engine's deadline passes (its signal aborts with a TimeoutError). Driven by
   * that event, not by a short timeout racing the machine's speed.
   */
  const submitLosingTheAnswer = async (p: ImageProvider, req: ProviderRequest) => {
    fake.scriptCreate({ kind: 'hang-after-create' });
    const deadline = new AbortController();
    const hung = fake.nextHang();
    const outcome = p.submit({ ...req, signal: deadline.signal });
    await hung;
    deadline.abort(new DOMException('the engine deadline passed', 'TimeoutError'));
    return outcome;
  };

  test('a create whose answer was lost is maybe-accepted; the next submit (reconcile) adopts it', async () => {
    const req = request({
      mode: 'fusion',
      references: [await referenceImage(), await referenceImage(20, 20)],
    });
    const first = await submitLosingTheAnswer(provider(), req);
    assertFailed(first);
    assert.equal(first.retryable, true);
    assert.equal(first.maybeAccepted, true);
    assert.equal(first.cause, 'timeout');
    assert.equal(fake.predictions.length, 1, 'the upstream did create it');

    // Another worker (a fresh adapter, no memory) picks the task up, flagged by the engine.
    const second = await provider().submit({ ...req, reconcile: true });
    assertPending(second);
    assert.equal(second.upstreamId, fake.predictions[0]?.id);
    assert.equal(fake.predictions.length, 1, 'no second prediction');
  });

  test('the same process remembers a lost create even without the engine flag', async () => {
    fake.scriptCreate({ kind: 'malformed-after-create' });
    const p = provider();
    const req = request();
    const first = await p.submit(req);
    assertFailed(first);
    assert.equal(first.maybeAccepted, true);
    const second = await p.submit(req);
    assertPending(second);
    assert.equal(second.upstreamId, fake.predictions[0]?.id);
    assert.equal(fake.predictions.length, 1);
  });

  test('siblings with the same prompt are not adopted (the seed tells them apart); pages are followed', async () => {
    const req = request();
    // Other tasks' predictions with the same prompt, plus unrelated ones, spread over several pages.
    for (let i = 0; i < 3; i++) {
      fake.seedPrediction({
        model: 'acme/seeded-fusion',
        input: {
          prompt: req.prompt,
          aspect_ratio: '1:1',
          seed: seedForTask(`tsk_sibling${i}`, { minimum: 0, maximum: 1_000_000 }),
        },
      });
    }
    assertFailed(await submitLosingTheAnswer(provider(), req));
    for (let i = 0; i < 3; i++)
      fake.seedPrediction({ model: 'google/nano-banana-pro', input: { prompt: `other ${i}` } });
    const lost = fake.predictions[3];
    const second = await provider().submit({ ...req, reconcile: true });
    assertPending(second);
    assert.equal(second.upstreamId, lost?.id);
    assert.equal(fake.predictions.length, 7, 'nothing created');
  });

  test('nothing to find: reconcile creates the prediction after all', async () => {
    const req = request();
    const outcome = await provider().submit({ ...req, reconcile: true });
    assertPending(outcome);
    assert.equal(fake.predictions.length, 1);
  });

  test('duplicates already made for the task: the oldest is adopted and the others canceled', async () => {
    const req = request();
    const seed = seedForTask(req.taskId, { minimum: 0, maximum: 1_000_000 });
    const older = fake.seedPrediction({
      model: 'acme/seeded-fusion',
      input: { prompt: req.prompt, aspect_ratio: '1:1', seed },
    });
    const newer = fake.seedPrediction({
      model: 'acme/seeded-fusion',
      input: { prompt: req.prompt, aspect_ratio: '1:1', seed },
    });
    const outcome = await provider().submit({ ...req, reconcile: true });
    assertPending(outcome);
    assert.equal(outcome.upstreamId, older.id);
    assert.equal(newer.canceled, true);
    assert.equal(older.canceled, false);
  });

  test('when the list cannot be read, nothing is created and the failure stays maybe-accepted', async () => {
    const p = provider();
    const req = request();
    assertFailed(await submitLosingTheAnswer(p, req));
    fake.scriptPoll({ kind: 'error', status: 500, json: { detail: 'list unavailable' } });
    const outcome = await p.submit({ ...req, reconcile: true });
    assertFailed(outcome);
    assert.equal(outcome.retryable, true);
    assert.equal(outcome.maybeAccepted, true);
    assert.equal(fake.predictions.length, 1);
    const third = await p.submit({ ...req, reconcile: true });
    assertPending(third);
    assert.equal(fake.predictions.length, 1);
  });

  test('a website prediction with the same input is never adopted', async () => {
    const req = request({ upstreamModel: `acme/pinned:${PINNED}` });
    fake.seedPrediction({
      model: 'acme/pinned',
      input: { prompt: req.prompt, aspect_ratio: '1:1' },
      source: 'web',
    });
    const outcome = await provider().submit({ ...req, reconcile: true });
    assertPending(outcome);
    assert.equal(fake.predictions.length, 2);
  });
});

describe('catalogs/replicate.json', () => {
  test('parses, with owner/name model references', () => {
    const json = JSON.parse(
      readFileSync(new URL('../../../catalogs/replicate.json', import.meta.url), 'utf8'),
    );
    const catalog = parseCatalog(json, ['local', 'gemini', 'openai', 'replicate']);
    for (const model of catalog.models) {
      assert.equal(model.provider, 'replicate');
      assert.match(model.upstreamModel, /^[a-z0-9-]+\/[a-z0-9.-]+$/);
    }
    assert.ok(catalog.get('pro')?.modes.includes('fusion'));
  });
});
