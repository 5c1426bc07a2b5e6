import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { budgetOption, keyNamed, setBudgetCommand } from '../../src/edges/cli/budget-command.js';
import { AtelierApiError, createAtelierClient } from '../../src/edges/client/atelier-client.js';
import { errorResult } from '../../src/edges/mcp/tool-results.js';
import { assertError, bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * Budgets that hold (issue 31): each task reserves the most it can cost in its creating
 * transaction, admissions of an account are serialised, completion settles the real cost, a
 * failure releases it all. The local renderer priced by a test catalog: an image costs $0.10 at 1K
 * (its per-image price) and reserves $0.30 (its maximum), $0.25 / $0.50 at 2K.
 */
const PRICE = { perImage: { '1K': 100_000, '2K': 250_000 }, maxPerImage: { '1K': 300_000, '2K': 500_000 } };
const DOLLAR = 1_000_000;

let dir: string;
async function pricedCatalog(): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'atelier-budgets-'));
  const path = join(dir, 'catalog.json');
  const models = DEFAULT_CATALOG.models.map((model) => ({ ...model, price: PRICE }));
  await writeFile(path, JSON.stringify({ models }));
  return path;
}

describe('budgets: reserved at admission, settled at completion, released on failure', () => {
  let slow: TestApp;
  let fast: TestApp;

  before(async () => {
    const catalog = await pricedCatalog();
    // Tasks of `slow` stay in flight for the whole test: what they hold is their reservation.
    slow = await createTestApp({
      listen: true,
      env: { ATELIER_CATALOG: catalog, ATELIER_LOCAL_LATENCY_MS: '600000' },
    });
    fast = await createTestApp({ env: { ATELIER_CATALOG: catalog } });
  });
  after(async () => {
    await slow?.close();
    await fast?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const generate = (t: TestApp, apiKey: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/generate', headers: bearer(apiKey), payload });
  const usage = async (t: TestApp, apiKey: string) =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/user/usage', headers: bearer(apiKey) })).json();

  test('50 concurrent requests at a daily budget: exactly what fits is accepted, the rest 402 budget_exceeded', async () => {
    const { apiKey, id } = await slow.createAccount();
    // $3.00 a day; each request reserves $0.30: ten fit, exactly.
    await slow.core.budgets.set(id, { dailyMicros: 3 * DOLLAR });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => generate(slow, apiKey, { prompt: 'burst', imageSize: '1K' })),
    );
    const accepted = answers.filter((a) => a.statusCode === 200);
    assert.equal(accepted.length, 10, 'exactly the budget accepted');
    for (const refused of answers.filter((a) => a.statusCode !== 200)) {
      const message = assertError(refused, 402, 'budget_exceeded');
      assert.match(message, /daily \(UTC\) budget is \$3\.00; \$3\.00 spent or reserved/);
      assert.match(message, /may cost up to \$0\.30 \(resets at \d{4}-\d{2}-\d{2}T00:00:00\.000Z\)/);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 86_400, `Retry-After ${retryAfter}`);
    }
    const history = await slow.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) });
    assert.equal(history.json().total, 10, 'refused requests created nothing');
    const { budgets } = await usage(slow, apiKey);
    assert.deepEqual(
      { ...budgets.daily, resets_at: undefined },
      {
        limit_micros: 3 * DOLLAR,
        spent_micros: 3 * DOLLAR,
        reserved_micros: 3 * DOLLAR,
        remaining_micros: 0,
        resets_at: undefined,
      },
    );
    assert.equal(budgets.daily.resets_at % 86_400_000, 0, 'resets at midnight UTC');
    assert.equal(budgets.monthly, null);
  });

  test('a monthly budget holds the same way; a request of several images is refused whole', async () => {
    const { apiKey, id } = await slow.createAccount();
    await slow.core.budgets.set(id, { monthlyMicros: 1 * DOLLAR });
    // 2 × $0.50 at 2K = $1.00: fits exactly; then nothing more.
    assert.equal(
      (await generate(slow, apiKey, { prompt: 'two', count: 2, imageSize: '2K' })).statusCode,
      200,
    );
    const refused = await generate(slow, apiKey, { prompt: 'one more', imageSize: '1K' });
    assert.match(assertError(refused, 402, 'budget_exceeded'), /monthly \(UTC\) budget is \$1\.00/);
    assert.match(refused.json().error.message, /resets at \d{4}-\d{2}-01T00:00:00\.000Z/);
  });

  test('completion settles the real cost and releases the rest; a failure releases all of it', async () => {
    const { apiKey, id } = await fast.createAccount();
    await fast.core.budgets.set(id, { dailyMicros: 1 * DOLLAR });
    // Three images reserve $0.90; a fourth ($0.30 more) does not fit while they run.
    const three = await generate(fast, apiKey, { prompt: 'three', count: 3, imageSize: '1K' });
    assert.equal(three.statusCode, 200, three.body);
    assertError(await generate(fast, apiKey, { prompt: 'one', imageSize: '1K' }), 402, 'budget_exceeded');
    for (const taskId of three.json().task_ids) {
      const { final } = await pollUntilFinal(fast.app, apiKey, taskId);
      assert.deepEqual((final as { cost?: unknown }).cost, {
        amount_micros: 100_000,
        currency: 'USD',
        source: 'catalog_price',
      });
    }
    // Settled at $0.30 spent: $0.70 left, two more reservations fit.
    let { budgets } = await usage(fast, apiKey);
    assert.equal(budgets.daily.spent_micros, 300_000);
    assert.equal(budgets.daily.reserved_micros, 0);
    const failing = await generate(fast, apiKey, { prompt: 'fails [[fail]]', count: 2, imageSize: '1K' });
    assert.equal(failing.statusCode, 200, failing.body);
    for (const taskId of failing.json().task_ids) {
      const { final } = await pollUntilFinal(fast.app, apiKey, taskId);
      assert.equal(final.status, 'failed');
      assert.equal((final as { cost?: unknown }).cost, undefined, 'a failed task has no cost');
    }
    ({ budgets } = await usage(fast, apiKey));
    assert.equal(budgets.daily.spent_micros, 300_000, 'the failed images released their reservation');
    const report = await usage(fast, apiKey);
    assert.equal(report.totals.cost_micros, 300_000);
    assert.equal(report.totals.failed, 2);
    // The history item sums its completed tasks' costs.
    const history = await fast.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) });
    const item = history.json().items.find((i: { prompt: string }) => i.prompt === 'three');
    assert.deepEqual(item.cost, { amount_micros: 300_000, currency: 'USD' });
  });

  test("50 concurrent requests with one key at its budget: only what fits its budget; the account's other key is not held by it", async () => {
    const { apiKey: first, id, email } = await slow.createAccount();
    const { key, apiKey: dashboard } = await slow.core.accounts.createKey(id, { name: 'batch job' });
    // $0.60 a day for the key: two $0.30 reservations.
    const lines: string[] = [];
    await setBudgetCommand(
      slow.core,
      { id, email },
      { daily: budgetOption('0.6', 'daily'), monthly: undefined },
      true,
      (line) => lines.push(line),
      keyNamed(await slow.core.accounts.listKeys(id), key.hint),
    );
    assert.deepEqual(JSON.parse(lines[0] ?? ''), {
      email,
      key_id: key.id,
      daily_micros: 600_000,
      monthly_micros: null,
      currency: 'USD',
    });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => generate(slow, dashboard, { prompt: 'key burst', imageSize: '1K' })),
    );
    assert.equal(answers.filter((a) => a.statusCode === 200).length, 2, "exactly the key's budget accepted");
    for (const refused of answers.filter((a) => a.statusCode !== 200))
      assert.match(
        assertError(refused, 402, 'budget_exceeded'),
        new RegExp(`the API key "batch job" \\(${key.id}\\)'s daily \\(UTC\\) budget is \\$0\\.60`),
      );
    // The account's own key has no budget of its own, and the account none: it is not held.
    assert.equal((await generate(slow, first, { prompt: 'other key', imageSize: '1K' })).statusCode, 200);
    const { budgets } = await usage(slow, dashboard);
    assert.equal(budgets.daily, null, 'no account budget');
    assert.equal(budgets.key.key_id, key.id);
    assert.equal(budgets.key.daily.spent_micros, 600_000);
    assert.equal(budgets.key.daily.remaining_micros, 0);
    // An account budget holds every key: $1.00 with $0.90 already reserved by both keys.
    await slow.core.budgets.set(id, { dailyMicros: 1 * DOLLAR });
    const refused = await generate(slow, first, { prompt: 'one more', imageSize: '1K' });
    assert.match(
      assertError(refused, 402, 'budget_exceeded'),
      /the account's daily \(UTC\) budget is \$1\.00; \$0\.90 spent/,
    );
  });

  test('the 402 in OpenAI’s shape on /v1/images and Google’s on /v1beta', async () => {
    const { apiKey, id } = await slow.createAccount();
    await slow.core.budgets.set(id, { dailyMicros: 0 });
    const openai = await slow.app.inject({
      method: 'POST',
      url: '/v1/images/generations',
      headers: { ...bearer(apiKey), prefer: 'respond-async' },
      payload: { model: 'base-image-2', prompt: 'x', size: '1024x1024' },
    });
    assert.equal(openai.statusCode, 402, openai.body);
    const body = openai.json();
    assert.equal(body.error.code, 'budget_exceeded');
    assert.equal(body.error.type, 'invalid_request_error');
    assert.equal(body.error.param, null);
    assert.match(body.error.message, /daily \(UTC\) budget is \$0\.00.*resets at/);
    assert.ok(Number(openai.headers['retry-after']) >= 1);

    const gemini = await slow.app.inject({
      method: 'POST',
      url: '/v1beta/models/base-image-2:generateContent',
      headers: { 'x-goog-api-key': apiKey },
      payload: { contents: [{ parts: [{ text: 'x' }] }] },
    });
    assert.equal(gemini.statusCode, 402, gemini.body);
    const error = gemini.json().error;
    assert.equal(error.code, 402);
    assert.equal(error.status, 'RESOURCE_EXHAUSTED');
    assert.equal(error.details[0].reason, 'BUDGET_EXCEEDED');
    assert.match(error.message, /Budget exceeded/);
  });

  test('the MCP tools see the message, with advice not to retry before the reset', async () => {
    const { apiKey, id } = await slow.createAccount();
    await slow.core.budgets.set(id, { dailyMicros: 100_000 });
    const client = createAtelierClient({ baseUrl: slow.baseUrl, apiKey });
    const thrown = await client.generate({ prompt: 'x' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(thrown instanceof AtelierApiError);
    const result = errorResult(thrown);
    assert.equal(result.isError, true);
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    assert.match(
      text,
      /^budget_exceeded \(HTTP 402\): Budget exceeded: the account's daily \(UTC\) budget is \$0\.10/,
    );
    assert.match(text, /resets at .*Z\)/);
    assert.match(text, /retrying before then will not help/);
  });

  test('atelier accounts set-budget: dollars with decimals kept as micro-dollars; none removes one', async () => {
    const { email, id } = await slow.createAccount();
    const lines: string[] = [];
    const set = (daily: string | undefined, monthly: string | undefined) =>
      setBudgetCommand(
        slow.core,
        { id, email },
        { daily: budgetOption(daily, 'daily'), monthly: budgetOption(monthly, 'monthly') },
        true,
        (line) => lines.push(line),
      );
    await set('12.50', '$300');
    assert.deepEqual(JSON.parse(lines.at(-1) ?? ''), {
      email,
      daily_micros: 12_500_000,
      monthly_micros: 300 * DOLLAR,
      currency: 'USD',
    });
    await set('none', undefined);
    assert.deepEqual(await slow.core.budgets.get(id), { dailyMicros: null, monthlyMicros: 300 * DOLLAR });
    assert.throws(() => budgetOption('12.3456789', 'daily'), /US dollars/);
    assert.throws(() => budgetOption('-5', 'monthly'), /US dollars/);
  });
});
