import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { type FakeOpenAI, startFakeOpenAI } from '../../../test/fakes/providers/fake-openai.js';
import { providerRequest, referenceImage } from '../../../test/fakes/providers/provider-request.js';
import { createOpenAIProvider } from './openai-provider.js';
import type { ReferenceImage } from './provider.js';

const KEY = 'sk-test-0123456789abcdefghijklmnop';

/** A mask of `width` × `height`: transparent on its left half, opaque on its right. */
async function halfMask(width: number, height: number, alpha = true): Promise<ReferenceImage> {
  const pixels = Buffer.alloc(width * height * 4, 255);
  for (let i = 0; i < width * height; i++) if (i % width < width / 2) pixels[i * 4 + 3] = 0;
  let image = sharp(pixels, { raw: { width, height, channels: 4 } });
  if (!alpha) image = image.removeAlpha();
  return { bytes: await image.png().toBuffer(), contentType: 'image/png', width, height };
}

describe('openai adapter: an edit with a mask', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY });
  });
  after(() => fake.close());

  const provider = () => createOpenAIProvider({ baseUrl: fake.baseUrl, requestTimeoutMs: 10_000 });
  const edit = async (mask: ReferenceImage) =>
    provider().submit(
      providerRequest({
        upstreamModel: 'gpt-image-1.5',
        apiKey: KEY,
        mode: 'edit',
        references: [await referenceImage(96, 64)],
        mask,
      }),
    );

  test('the mask goes as the mask file part, its bytes unchanged, beside image[]', async () => {
    const mask = await halfMask(96, 64);
    const outcome = await edit(mask);
    assert.equal(outcome.kind, 'done', JSON.stringify(outcome).slice(0, 300));
    const call = fake.calls.at(-1);
    assert.equal(call?.endpoint, 'edits');
    assert.equal(call?.images.length, 1);
    assert.deepEqual(call?.mask, mask.bytes);
  });

  test('the stand-in refuses a mask as OpenAI does: another size, or no alpha channel', async () => {
    for (const mask of [await halfMask(64, 64), await halfMask(96, 64, false)]) {
      const served = fake.calls.length;
      const outcome = await edit(mask);
      assert.equal(outcome.kind, 'failed');
      assert.match(outcome.kind === 'failed' ? outcome.message : '', /HTTP 400/);
      assert.equal(fake.calls.length, served, 'refused before any image was made');
    }
  });

  test('no mask, no mask part', async () => {
    const outcome = await provider().submit(
      providerRequest({
        upstreamModel: 'gpt-image-1.5',
        apiKey: KEY,
        mode: 'edit',
        references: [await referenceImage()],
      }),
    );
    assert.equal(outcome.kind, 'done');
    assert.equal(fake.calls.at(-1)?.mask, undefined);
  });
});
