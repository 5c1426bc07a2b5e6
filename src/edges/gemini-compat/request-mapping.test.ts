import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type GeminiGenerateBody, geminiGenerateBodySchema } from '../../base/contract/gemini.js';
import { InvalidInput } from '../../base/domain/errors.js';
import { parseCatalog } from '../../capabilities/catalog/index.js';
import { camelizeGeminiBody, planGeminiRequest } from './request-mapping.js';

const catalog = parseCatalog(
  {
    models: [
      { id: 'base-image-2', provider: 'local', upstreamModel: 'm', modes: ['text', 'edit'] },
      {
        id: 'pro',
        provider: 'local',
        upstreamModel: 'm',
        modes: ['text', 'edit', 'fusion'],
        sizes: ['2K', '4K'],
      },
    ],
  },
  ['local'],
);
const model = (id: string) => {
  const found = catalog.get(id);
  assert.ok(found);
  return found;
};
const body = (raw: unknown): GeminiGenerateBody => geminiGenerateBodySchema.parse(camelizeGeminiBody(raw));
const image = { inlineData: { mimeType: 'image/png', data: 'AAAA' } };

describe('Gemini request mapping', () => {
  test('snake_case names read as camelCase (camelCase wins when both are sent)', () => {
    assert.deepEqual(
      camelizeGeminiBody({
        contents: [{ parts: [{ inline_data: { mime_type: 'image/png', data: 'x' } }] }],
        generation_config: { image_config: { aspect_ratio: '3:2' }, candidate_count: 2 },
      }),
      {
        contents: [{ parts: [{ inlineData: { mimeType: 'image/png', data: 'x' } }] }],
        generationConfig: { imageConfig: { aspectRatio: '3:2' }, candidateCount: 2 },
      },
    );
    assert.deepEqual(camelizeGeminiBody({ generationConfig: 1, generation_config: 2 }), {
      generationConfig: 1,
    });
  });

  test("without a model image, the user's text parts are the prompt, the images of every turn the references", () => {
    const plan = planGeminiRequest(
      model('pro'),
      body({
        contents: [
          { role: 'user', parts: [{ text: 'a cat' }, image] },
          { role: 'model', parts: [{ text: 'here it is' }] },
          { parts: [{ text: 'now blue' }, { file_data: { file_uri: 'https://example.com/a.png' } }] },
        ],
      }),
    );
    assert.equal(plan.prompt, 'a cat\nnow blue');
    assert.deepEqual(
      plan.references.map((reference) => reference.kind),
      ['inline', 'url'],
    );
    assert.equal(plan.previous, undefined);
    assert.equal(plan.mode, 'fusion');
    assert.equal(plan.imageSize, undefined, 'no 1K on this model: the generate default applies');
  });

  test("a conversation edits the model's last image: the turns after it are the new turn", () => {
    const signed = { ...image, thoughtSignature: 'c2lnbmVk' };
    const plan = planGeminiRequest(
      model('pro'),
      body({
        contents: [
          { role: 'user', parts: [{ text: 'a cat' }, image] },
          { role: 'model', parts: [{ text: 'here it is' }, signed] },
          { parts: [{ text: 'now blue' }, { file_data: { file_uri: 'https://example.com/a.png' } }] },
        ],
      }),
    );
    assert.equal(plan.prompt, 'now blue');
    assert.equal(plan.previous?.label, 'contents[1].parts[1].inlineData');
    assert.equal(plan.previous?.signature, 'c2lnbmVk');
    assert.deepEqual(
      plan.references.map((reference) => reference.kind),
      ['url'],
    );
    assert.equal(plan.mode, 'fusion', 'the model image and the new reference');
    assert.throws(
      () =>
        planGeminiRequest(
          model('pro'),
          body({ contents: [{ parts: [{ text: 'a cat' }] }, { role: 'model', parts: [signed] }] }),
        ),
      /after the model's last image/,
    );
  });

  test('imageConfig and candidateCount map onto aspect, size and count; defaults 1K and 1', () => {
    const text = planGeminiRequest(model('base-image-2'), body({ contents: [{ parts: [{ text: 'x' }] }] }));
    assert.deepEqual([text.mode, text.aspect, text.imageSize, text.count], ['text', undefined, '1K', 1]);
    const configured = planGeminiRequest(
      model('base-image-2'),
      body({
        contents: [{ parts: [{ text: 'x' }] }],
        generationConfig: { candidateCount: 3, imageConfig: { aspectRatio: '16:9', imageSize: '2k' } },
      }),
    );
    assert.deepEqual([configured.aspect, configured.imageSize, configured.count], ['16:9', '2K', 3]);
  });

  test('refusals name the field: no IMAGE modality, no prompt, a mode the model lacks, a non-image or non-URL part', () => {
    const refused = (raw: unknown, id = 'base-image-2') => {
      try {
        planGeminiRequest(model(id), body(raw));
      } catch (error) {
        assert.ok(error instanceof InvalidInput);
        return `${error.field}: ${error.message}`;
      }
      assert.fail('accepted');
    };
    const x = { parts: [{ text: 'x' }] };
    assert.match(
      refused({ contents: [x], generationConfig: { responseModalities: ['TEXT'] } }),
      /^generationConfig.responseModalities: .*must include IMAGE/,
    );
    assert.match(refused({ contents: [{ parts: [image] }] }), /^prompt: contents must carry a text part/);
    assert.match(refused({ contents: [{ parts: [{ text: 'x' }, image, image] }] }), /^mode: .*fusion/);
    assert.match(
      refused({
        contents: [{ parts: [{ text: 'x' }, { inlineData: { mimeType: 'text/plain', data: 'x' } }] }],
      }),
      /^contents: contents\[0\]\.parts\[1\]\.inlineData: mimeType text\/plain is not an image/,
    );
    assert.match(
      refused({ contents: [{ parts: [{ text: 'x' }, { fileData: { fileUri: 'files/abc' } }] }] }),
      /^contents: .*fileUri must be an http\(s\) URL/,
    );
  });
});
