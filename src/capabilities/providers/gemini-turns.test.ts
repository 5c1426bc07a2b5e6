import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeGemini, startFakeGemini } from '../../../test/fakes/providers/fake-gemini.js';
import { providerRequest, referenceImage } from '../../../test/fakes/providers/provider-request.js';
import { createGeminiProvider } from './gemini-provider.js';
import type { ConversationTurn, SubmitOutcome } from './provider.js';

const KEY = 'AIzaTurnsKey-0123456789abcdefghijklmnop';

function assertDone(outcome: SubmitOutcome): asserts outcome is Extract<SubmitOutcome, { kind: 'done' }> {
  assert.equal(outcome.kind, 'done', `expected done, got ${JSON.stringify(outcome).slice(0, 300)}`);
}

describe('gemini provider, multi-turn', () => {
  let fake: FakeGemini;
  before(async () => {
    fake = await startFakeGemini({ apiKey: KEY });
  });
  after(() => fake.close());

  const request = (overrides: Parameters<typeof providerRequest>[0] = {}) =>
    providerRequest({ upstreamModel: 'gemini-3.1-flash-image', apiKey: KEY, ...overrides });

  /** A first turn made, and the conversation that continues it. */
  async function firstTurn(): Promise<ConversationTurn> {
    fake.script({ kind: 'image', thoughtFirst: true, text: 'Here is your lighthouse.' });
    const outcome = await createGeminiProvider({ baseUrl: fake.baseUrl }).submit(request());
    assertDone(outcome);
    assert.ok('bytes' in outcome.image);
    // The thought image is left out; the text and the image keep their places and signatures.
    assert.deepEqual(outcome.turn, {
      parts: [
        { text: 'Here is your lighthouse.' },
        { image: true, thoughtSignature: fake.signatures.at(-1) },
      ],
    });
    const image = { ...(await referenceImage()), bytes: outcome.image.bytes };
    return {
      user: { prompt: 'a lighthouse at dawn', references: [] },
      model: [{ text: 'Here is your lighthouse.' }, { image, thoughtSignature: fake.signatures.at(-1) }],
    };
  }

  test('the earlier turn goes first, its image part signed as answered; refused signatures: one turn', async () => {
    const turn = await firstTurn();
    const provider = createGeminiProvider({ baseUrl: fake.baseUrl });
    const extra = await referenceImage(64, 64, '#aa2222');
    const outcome = await provider.submit(
      request({ prompt: 'darker sky', history: [turn], references: [extra] }),
    );
    assertDone(outcome);
    const contents = fake.calls.at(-1)?.body.contents;
    assert.deepEqual(
      contents?.map((c) => [c.role, c.parts.length]),
      [
        ['user', 1],
        ['model', 2],
        ['user', 2],
      ],
    );
    assert.deepEqual(contents?.[1]?.parts[0], { text: 'Here is your lighthouse.' });

    // Signatures the upstream refuses (another project's key): the edit goes on as one turn.
    const forged = { ...turn, model: turn.model.map((part) => ({ ...part, thoughtSignature: 'AAAA' })) };
    const calls = fake.calls.length;
    const again = await provider.submit(request({ prompt: 'darker sky', history: [forged] }));
    assertDone(again);
    assert.equal(fake.calls.length, calls + 1, 'the refused call is not recorded by the fake; the retry is');
    const single = fake.calls.at(-1)?.body.contents;
    assert.deepEqual(
      single?.map((c) => [c.role, c.parts.length]),
      [['user', 2]],
    );
  });

  test('a conversation too large for the request goes as one turn, the parent image first', async () => {
    const turn = await firstTurn();
    const image = turn.model.find((part) => 'image' in part);
    assert.ok(image && 'image' in image);
    const small = createGeminiProvider({
      baseUrl: fake.baseUrl,
      maxRequestBytes: 4096 + 2 * image.image.bytes.length,
    });
    const outcome = await small.submit(request({ prompt: 'darker sky', history: [turn, turn, turn] }));
    assertDone(outcome);
    const contents = fake.calls.at(-1)?.body.contents;
    assert.equal(contents?.length, 1);
    assert.deepEqual(contents?.[0]?.parts[0], { text: 'darker sky' });
    const sent = contents?.[0]?.parts[1];
    assert.ok(sent && 'inlineData' in sent);
    assert.equal(sent.inlineData.data, image.image.bytes.toString('base64'));
  });
});
