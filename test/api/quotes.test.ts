import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { gptImageOutputTokens } from '../../src/capabilities/catalog/gpt-image-tokens.js';
import { type Core, createCore } from '../../src/core.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { bearer, pollUntilFinal } from '../support/api-helpers.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';

/**
 * Issue 41: a quote binds. Two nodes on one store and one data directory (so one deployment key):
 * `a` serves the shipped OpenAI catalog, `b` the same catalog after a price rise (every figure
 * doubled) and runs the engine. A quote made on `a` is honoured on `b`: the task reserves the quote's
 * most and is charged no more, the upstream's excess recorded as absorbed. A quote for another body,
 * another account's, a forged one or an expired one (b's clock, injected) is refused, naming quote_id.
 */
const KEY = 'sk-quotes-test';
const shipped = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../catalogs/openai.json', import.meta.url)), 'utf8'),
);
/** Every price of the catalog doubled (a deep copy: micro-dollar figures are the numbers under price). */
function doubled(value: unknown, inPrice = false): unknown {
  if (Array.isArray(value)) return value.map((item) => doubled(item, inPrice));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === 'maxTokensPerReference' ? inner : doubled(inner, inPrice || key === 'price'),
      ]),
    );
  return inPrice && typeof value === 'number' ? value * 2 : value;
}

describe('quotes that bind', () => {
  let openai: FakeOpenAI;
  let dataEnv: Record<string, string>;
  const nodes: Array<{ core: Core; app: FastifyInstance }> = [];
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs };
  let a: FastifyInstance;
  let b: FastifyInstance;
  let bCore: Core;
  let config: ReturnType<typeof loadConfig>;

  before(async () => {
    // OpenAI bills the most its formula gives for the size at high quality, and 10 text tokens.
    openai = await startFakeOpenAI({
      apiKey: KEY,
      usage: (call) => {
        const [w = 1, h = 1] = String(call.params.size).split('x').map(Number);
        const output = gptImageOutputTokens('high', w, h);
        return {
          input_tokens: 10,
          input_tokens_details: { text_tokens: 10, image_tokens: 0 },
          output_tokens: output,
          total_tokens: 10 + output,
        };
      },
    });
    dataEnv = await freshTestDataEnv('atelier-quotes-');
    const raised = join(dataEnv.ATELIER_DATA_DIR ?? '', 'raised-catalog.json');
    await writeFile(raised, JSON.stringify(doubled(shipped)));
    const env = (catalog: string) => ({
      ...dataEnv,
      ATELIER_CATALOG: catalog,
      ATELIER_OPENAI_API_KEY: KEY,
      ATELIER_OPENAI_BASE_URL: openai.baseUrl,
      ATELIER_DEMO_ACCOUNT: 'false',
      LOG_LEVEL: 'silent',
    });
    config = loadConfig(env(fileURLToPath(new URL('../../catalogs/openai.json', import.meta.url))));
    for (const [catalogEnv, overrides] of [
      [config, {}],
      [loadConfig(env(raised)), { clock, idlePollMs: 50 }],
    ] as const) {
      const core = await createCore(catalogEnv, overrides);
      nodes.push({ core, app: await buildApp(core) });
    }
    [a, b] = nodes.map((node) => node.app) as [FastifyInstance, FastifyInstance];
    bCore = (nodes[1] as { core: Core }).core;
    bCore.engine.start();
  });
  after(async () => {
    for (const { core, app } of nodes.reverse()) {
      await app.close();
      await core.close(0);
    }
    await removeTestData(config);
    await openai.close();
  });

  const body = { prompt: 'a lighthouse at dawn', model: 'base-image-2', imageSize: '1K', count: 2 };
  const post = (app: FastifyInstance, url: string, apiKey: string, payload: Record<string, unknown>) =>
    app.inject({ method: 'POST', url, headers: bearer(apiKey), payload });

  test('a quote made before a price rise is honoured after it: reserved, charged at most, the excess absorbed', async () => {
    const { apiKey } = await bCore.accounts.create({ email: 'quoted@example.test' });
    const quoted = await post(a, '/api/v1/quotes', apiKey, body);
    assert.equal(quoted.statusCode, 200, quoted.body);
    const quote = quoted.json();
    // High (the catalog's default quality) at 1K: $0.21072, plus 20 prompt characters at $5 / 1M.
    assert.equal(quote.max_per_image_micros, 210_720 + 100);
    assert.equal(quote.max_cost_micros, 2 * quote.max_per_image_micros);
    assert.equal(quote.expected_cost_micros, 2 * 210_720);
    assert.equal(quote.currency, 'USD');
    assert.match(quote.quote_id, /^qt_/);

    // Without the quote, b reserves at its raised prices.
    const unquoted = await post(b, '/api/v1/generate', apiKey, body);
    assert.equal(unquoted.statusCode, 200, unquoted.body);
    const generated = await post(b, '/api/v1/generate', apiKey, { ...body, quote_id: quote.quote_id });
    assert.equal(generated.statusCode, 200, generated.body);
    const ids = [...unquoted.json().task_ids, ...generated.json().task_ids] as string[];
    for (const id of ids) assert.equal((await pollUntilFinal(b, apiKey, id)).final.status, 'completed');
    const rows = await bCore.resources.db
      .selectFrom('tasks')
      .select(['id', 'cost_micros', 'cost_reserved_micros', 'cost_cap_micros', 'cost_absorbed_micros'])
      .where('id', 'in', ids)
      .execute();
    const of = (id: string) => rows.find((row) => row.id === id);
    // OpenAI billed 10 text tokens and 7,024 output tokens: at b's doubled prices $0.42154.
    const billed = 10 * 10 + 7024 * 60;
    for (const id of unquoted.json().task_ids as string[]) {
      assert.equal(Number(of(id)?.cost_reserved_micros), 2 * 210_720 + 200);
      assert.equal(Number(of(id)?.cost_micros), billed);
      assert.equal(of(id)?.cost_absorbed_micros, null);
    }
    for (const id of generated.json().task_ids as string[]) {
      assert.equal(Number(of(id)?.cost_reserved_micros), quote.max_per_image_micros);
      assert.equal(Number(of(id)?.cost_cap_micros), quote.max_per_image_micros);
      assert.equal(Number(of(id)?.cost_micros), quote.max_per_image_micros);
      assert.equal(Number(of(id)?.cost_absorbed_micros), billed - quote.max_per_image_micros);
    }
    // The account's usage counts the quoted price, never the excess.
    const usage = await b.inject({ method: 'GET', url: '/api/v1/user/usage', headers: bearer(apiKey) });
    assert.equal(usage.json().totals.cost_micros, 2 * billed + 2 * quote.max_per_image_micros);
  });

  test('refused: another body, another account, a forged id, an expired quote — each naming quote_id', async () => {
    const { apiKey } = await bCore.accounts.create({ email: 'refused@example.test' });
    const { apiKey: otherKey } = await bCore.accounts.create({ email: 'other@example.test' });
    const quote = (await post(a, '/api/v1/quotes', apiKey, body)).json();
    const refused = async (apiKeyUsed: string, payload: Record<string, unknown>, message: RegExp) => {
      const response = await post(b, '/api/v1/generate', apiKeyUsed, payload);
      assert.equal(response.statusCode, 400, response.body);
      const { error } = response.json();
      assert.equal(error.type, 'invalid_request');
      assert.match(error.message, /^quote_id: /);
      assert.match(error.message, message);
    };
    await refused(
      apiKey,
      { ...body, count: 4, quote_id: quote.quote_id },
      /differs from the body that was quoted/,
    );
    await refused(apiKey, { ...body, quality: 'max', quote_id: quote.quote_id }, /differs/);
    await refused(otherKey, { ...body, quote_id: quote.quote_id }, /another account's/);
    const forged = quote.quote_id.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A'));
    await refused(apiKey, { ...body, quote_id: forged }, /not a quote of this deployment/);
    // b's clock, 15 minutes and a second on.
    offsetMs = 15 * 60_000 + 1000;
    try {
      await refused(apiKey, { ...body, quote_id: quote.quote_id }, /expired at/);
    } finally {
      offsetMs = 0;
    }
    // Nothing was created by a refusal.
    const history = await b.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) });
    assert.equal(history.json().items.length, 0);
  });
});
