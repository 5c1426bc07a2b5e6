import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeGemini, startFakeGemini } from '../../../test/fakes/providers/fake-gemini.js';
import { type FakeOpenAI, startFakeOpenAI } from '../../../test/fakes/providers/fake-openai.js';
import { type FakeReplicate, startFakeReplicate } from '../../../test/fakes/providers/fake-replicate.js';
import { assertNoKey, echoingText } from '../../../test/fakes/providers/key-echo.js';
import { providerRequest } from '../../../test/fakes/providers/provider-request.js';
import { createGeminiProvider } from './gemini-provider.js';
import { createOpenAIProvider } from './openai-provider.js';
import type { PollOutcome, SubmitOutcome } from './provider.js';
import { createReplicateProvider } from './replicate-provider.js';

// Upstreams (and proxies in front of them) that echo the refused key back in their error bodies,
// in every field and in several encodings. The failure text callers see is built from allow-listed
// fields, so none of it may come through, while the status and the documented codes still do.
const STATUSES = [400, 401, 403, 404, 422, 429, 500, 503];

function failureText(outcome: SubmitOutcome | PollOutcome): string {
  assert.equal(outcome.kind, 'failed', `expected a failure, got ${JSON.stringify(outcome).slice(0, 200)}`);
  return outcome.kind === 'failed' ? outcome.message : '';
}

describe('Gemini error text echoing the key', () => {
  const KEY = 'AIzaSyEchoEchoEcho0123456789abcdefghi';
  let fake: FakeGemini;
  before(async () => {
    fake = await startFakeGemini({ apiKey: KEY });
  });
  after(() => fake.close());

  test('every status: the message keeps the status and the google.rpc code, never the key', async () => {
    const provider = createGeminiProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 10_000 });
    for (const status of STATUSES) {
      fake.script({
        kind: 'error',
        status,
        json: {
          error: {
            code: status,
            message: echoingText(KEY),
            status: status === 429 ? 'RESOURCE_EXHAUSTED' : KEY,
            details: [
              { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: KEY, metadata: { KEY } },
            ],
          },
        },
      });
      const text = failureText(
        await provider.submit(providerRequest({ upstreamModel: 'gemini-3-pro-image', apiKey: KEY })),
      );
      assertNoKey(text, KEY, `Gemini ${status}`);
      assert.match(text, new RegExp(`^Gemini: .+ \\(HTTP ${status}( [A-Z_]+)*\\)$`));
      if (status === 429) assert.match(text, /RESOURCE_EXHAUSTED/);
    }
  });
});

describe('OpenAI error text echoing the key', () => {
  const KEY = 'sk-proj-EchoEchoEcho0123456789abcdefghij';
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY });
  });
  after(() => fake.close());

  test('every status: the message keeps the status and the documented code and type, never the key', async () => {
    const provider = createOpenAIProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 10_000 });
    for (const status of STATUSES) {
      const documented = status === 429;
      fake.script({
        kind: 'error',
        status,
        json: {
          error: {
            message: echoingText(KEY),
            type: documented ? 'rate_limit_error' : KEY,
            code: documented ? 'rate_limit_exceeded' : `invalid_api_key ${KEY}`,
            param: echoingText(KEY),
          },
        },
      });
      const text = failureText(
        await provider.submit(providerRequest({ upstreamModel: 'gpt-image-1.5', apiKey: KEY })),
      );
      assertNoKey(text, KEY, `OpenAI ${status}`);
      assert.match(text, new RegExp(`^OpenAI: .+ \\(HTTP ${status}( [a-z_]+)*\\)$`));
      if (documented) assert.match(text, /\(HTTP 429 rate_limit_exceeded rate_limit_error\)/);
    }
  });
});

describe('Replicate error text echoing the key', () => {
  const KEY = 'r8_EchoEchoEcho0123456789abcdefghijkl';
  let fake: FakeReplicate;
  before(async () => {
    fake = await startFakeReplicate({
      token: KEY,
      models: [
        {
          name: 'acme/echo',
          version: 'e'.repeat(64),
          inputs: { prompt: { type: 'string' }, aspect_ratio: { type: 'string', enum: ['1:1'] } },
        },
      ],
    });
  });
  after(() => fake.close());

  const provider = () => createReplicateProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 10_000 });
  const request = () => providerRequest({ upstreamModel: 'acme/echo', apiKey: KEY });

  test('create refused with any status: status only, and a 422 names just the known inputs', async () => {
    const adapter = provider();
    for (const status of STATUSES) {
      fake.scriptCreate({
        kind: 'error',
        status,
        json: {
          title: echoingText(KEY),
          detail: `- input.aspect_ratio: ${echoingText(KEY)}; - input.${KEY}: no`,
          status,
        },
      });
      const text = failureText(await adapter.submit(request()));
      assertNoKey(text, KEY, `Replicate ${status}`);
      assert.match(text, new RegExp(`\\(HTTP ${status}\\)$`));
      if (status === 422) assert.match(text, /refused input aspect_ratio;/);
    }
  });

  test('a poll answered with an error, and a prediction failed with an echoing error', async () => {
    const adapter = provider();
    fake.scriptLifecycle({ statuses: ['starting', 'failed'], error: `bad token ${echoingText(KEY)}` });
    const created = await adapter.submit(request());
    assert.equal(created.kind, 'pending');
    const upstreamId = created.kind === 'pending' ? created.upstreamId : '';
    fake.scriptPoll({ kind: 'error', status: 500, json: { detail: echoingText(KEY) } });
    const polled = failureText(await adapter.poll({ ...request(), upstreamId }));
    assertNoKey(polled, KEY, 'Replicate poll 500');
    assert.match(polled, /server error upstream \(HTTP 500\)/);
    const failed = failureText(await adapter.poll({ ...request(), upstreamId }));
    assertNoKey(failed, KEY, 'Replicate failed prediction');
    assert.match(failed, /failed: the model reported an error/);
  });
});
