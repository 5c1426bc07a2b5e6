import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { bearer } from '../support/api-helpers.js';
import { contractChecker, openApiDocumentOf } from '../support/openapi-contract.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * Issue 41: a client can learn what each model can do and what it costs — on /api/v1, on OpenAI's
 * /v1 (read by the openai SDK's models.retrieve) and on Gemini's /v1beta — from the same facts,
 * validated against the OpenAPI document, with the shipped OpenAI catalog's prices.
 */
const catalog = fileURLToPath(new URL('../../catalogs/openai.json', import.meta.url));

describe('models described to clients', () => {
  let t: TestApp;
  let apiKey: string;
  before(async () => {
    t = await createTestApp({
      listen: true,
      env: { ATELIER_CATALOG: catalog, ATELIER_OPENAI_API_KEY: 'sk-models-described' },
    });
    ({ apiKey } = await t.createAccount());
  });
  after(() => t?.close());

  test('GET /api/v1/models[/{id}], /v1/models/{model} and /v1beta/models/{model} carry qualities, prices per size and quality, and lifecycle', async () => {
    const doc = await openApiDocumentOf(t.app);
    const { exercise } = contractChecker(t.app, doc);
    const h = bearer(apiKey);
    const list = (await exercise('GET', '/api/v1/models', { url: '/api/v1/models', headers: h }, 200)).json();
    const one = (
      await exercise('GET', '/api/v1/models/{id}', { url: '/api/v1/models/pro', headers: h }, 200)
    ).json();
    assert.deepEqual(
      one,
      list.data.find((m: { id: string }) => m.id === 'pro'),
    );
    assert.equal(one.owned_by, 'openai');
    assert.deepEqual(one.qualities, ['low', 'medium', 'high', 'xhigh', 'max']);
    assert.equal(one.defaultQuality, 'high');
    assert.deepEqual(one.lifecycle, {
      released: '2026-11-04',
      deprecated: null,
      shutdown: null,
      replacement: null,
    });
    // $30 / 1M output tokens × OpenAI's formula: 7,024 tokens at 1024² high, 14,272 at 2K high.
    assert.equal(one.price.currency, 'USD');
    assert.equal(one.price.asOf, '2026-11-28');
    assert.equal(one.price.maxPerImageByQuality.high['1K'], 210_720);
    assert.equal(one.price.maxPerImageByQuality.high['2K'], 428_160);
    assert.equal(one.price.maxPerImageByQuality.low['1K'], 5_910);
    assert.equal(one.price.maxPerImage['4K'], one.price.maxPerImageByQuality.max['4K']);
    assert.deepEqual(one.price.perMillionTokens, {
      textInput: 5_000_000,
      imageInput: 8_000_000,
      output: 30_000_000,
    });
    assert.equal(one.price.maxTokensPerReference, 6240);
    // An alias answers the model it names; an unknown id is a 404 in Atelier's shape.
    const alias = await exercise(
      'GET',
      '/api/v1/models/{id}',
      { url: '/api/v1/models/gpt-image-1', headers: h },
      200,
    );
    assert.equal(alias.json().id, 'pro');
    const unknown = await exercise(
      'GET',
      '/api/v1/models/{id}',
      { url: '/api/v1/models/nope', headers: h },
      404,
    );
    assert.equal(unknown.json().error.type, 'not_found');

    const openai = (
      await exercise('GET', '/v1/models/{model}', { url: '/v1/models/flash', headers: h }, 200)
    ).json();
    const gemini = (
      await exercise(
        'GET',
        '/v1beta/models/{model}',
        { url: '/v1beta/models/flash', headers: { 'x-goog-api-key': apiKey } },
        200,
      )
    ).json();
    const flash = list.data.find((m: { id: string }) => m.id === 'flash');
    for (const field of [
      'modes',
      'sizes',
      'qualities',
      'defaultQuality',
      'price',
      'lifecycle',
      'maxCount',
      'masks',
    ]) {
      assert.deepEqual(openai[field], flash[field], `/v1 ${field}`);
      assert.deepEqual(gemini[field], flash[field], `/v1beta ${field}`);
    }
    assert.deepEqual(Object.keys(flash.price.perImage), ['1K']);
  });

  test("the openai SDK's models.retrieve reads a model and an alias with the catalog's facts", async () => {
    const client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey, maxRetries: 0 });
    const model = (await client.models.retrieve('base-image-2')) as OpenAI.Models.Model &
      Record<string, unknown>;
    assert.equal(model.id, 'base-image-2');
    assert.equal(model.object, 'model');
    assert.deepEqual(model.qualities, ['low', 'medium', 'high', 'xhigh', 'max']);
    assert.equal(
      (model.price as { maxPerImageByQuality: { medium: { '2K': number } } }).maxPerImageByQuality.medium[
        '2K'
      ],
      107_610,
    );
    const alias = (await client.models.retrieve('dall-e-3')) as OpenAI.Models.Model & Record<string, unknown>;
    assert.equal(alias.alias_of, 'base-image-2');
    assert.deepEqual(alias.price, model.price);
    await assert.rejects(
      client.models.retrieve('no-such-model'),
      (error: unknown) => error instanceof OpenAI.NotFoundError,
    );
  });
});
