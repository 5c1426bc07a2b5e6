import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { assertError, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { ADMIN, operatorAndUser, requests } from './admin-support.js';

const UPSTREAM_KEY = 'sk-upstream-admin';
const PRICE = { perImage: { '1K': 40_000, '2K': 120_000 } };

/** Asks the console until `ready` holds of its answer (the engine works in the background). */
async function until<T>(read: () => Promise<T>, ready: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (ready(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`${what}; last: ${JSON.stringify(last)}`);
}

describe('operator console API: usage, policies, upstreams', () => {
  let t: TestApp;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;
  let r: ReturnType<typeof requests>;
  let fake: FakeOpenAI;
  let dir: string;

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY });
    dir = await mkdtemp(join(tmpdir(), 'atelier-admin-'));
    const catalog = join(dir, 'catalog.json');
    const upstream = (id: string, upstreamModel: string) => ({
      id,
      provider: 'openai',
      upstreamModel,
      modes: ['text'],
    });
    await writeFile(
      catalog,
      JSON.stringify({
        models: [
          ...DEFAULT_CATALOG.models,
          upstream('limited', 'gpt-image-1.5'),
          upstream('broken', 'gpt-image-2'),
          // The local renderer costs nothing: this entry puts a price on it ($0.04 an image at 1K).
          { id: 'priced', provider: 'local', upstreamModel: 'local-v1', modes: ['text'], price: PRICE },
        ],
      }),
    );
    const policies = join(dir, 'policies.json');
    await writeFile(
      policies,
      JSON.stringify({ tiers: { trial: { images_per_day: 5, models: ['base-image-2'] } } }),
    );
    t = await createTestApp({
      env: {
        ATELIER_CATALOG: catalog,
        ATELIER_POLICY_FILE: policies,
        ATELIER_OPENAI_BASE_URL: fake.baseUrl,
        ATELIER_OPENAI_API_KEY: UPSTREAM_KEY,
        ATELIER_SUBMIT_MAX_ATTEMPTS: '1',
      },
    });
    who = await operatorAndUser(t);
    r = requests(t);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('usage and spend: per day and model, per account with its e-mail; a bad range is refused', async () => {
    await t.core.accounts.setTier(who.user.id, 'standard');
    for (const model of ['base-image-2', 'priced']) {
      const generated = await r.send('POST', '/api/v1/generate', who.plain, {
        prompt: 'a fox',
        imageSize: '1K',
        model,
      });
      assert.equal(generated.statusCode, 200, generated.body);
      await pollUntilFinal(t.app, who.user.apiKey, generated.json().task_ids[0]);
    }
    const today = new Date().toISOString().slice(0, 10);
    const answer = await r.get(`${ADMIN}/usage?from=${today}&to=${today}`, who.op);
    assert.equal(answer.statusCode, 200, answer.body);
    const usage = answer.json();
    const models = [
      { model: 'base-image-2', completed: 1, failed: 0, cost_micros: 0, absorbed_micros: 0 },
      { model: 'priced', completed: 1, failed: 0, cost_micros: 40_000, absorbed_micros: 0 },
    ];
    assert.equal(usage.currency, 'USD');
    const counts = { completed: 2, failed: 0, cost_micros: 40_000, absorbed_micros: 0 };
    assert.deepEqual(usage.totals, counts);
    assert.deepEqual(usage.days, [{ date: today, ...counts, models }]);
    assert.deepEqual(usage.models, models);
    assert.deepEqual(usage.accounts, [{ id: who.user.id, email: who.user.email, ...counts, models }]);
    // The account list counts today's images too.
    const listed = (await r.get(`${ADMIN}/accounts?q=${encodeURIComponent(who.user.email)}`, who.op)).json();
    assert.deepEqual(listed.items[0].today, counts);
    assert.deepEqual(listed.items[0].month, listed.items[0].today);
    assertError(await r.get(`${ADMIN}/usage?from=2020-01-01&to=2026-01-01`, who.op), 400, 'invalid_request');
    assertError(await r.get(`${ADMIN}/usage?to=tomorrow`, who.op), 400, 'invalid_request');
    assertError(await r.get(`${ADMIN}/usage`, who.plain), 403, 'forbidden');
  });

  test('budgets: set from the console, held at the door, listed with the policies in force', async () => {
    const budget = `${ADMIN}/accounts/${who.user.id}/budget`;
    // $0.05 a day: the $0.04 already spent today leaves room for no second priced image.
    const set = await r.send('PUT', budget, who.op, { daily_micros: 50_000 });
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(set.json().daily_micros, 50_000);
    assert.equal(set.json().monthly_micros, null);
    assert.deepEqual(
      { spent: set.json().status.daily.spent_micros, remaining: set.json().status.daily.remaining_micros },
      { spent: 40_000, remaining: 10_000 },
    );
    const over = await r.send('POST', '/api/v1/generate', who.plain, {
      prompt: 'x',
      imageSize: '1K',
      model: 'priced',
    });
    assertError(over, 402, 'budget_exceeded');
    assertError(await r.send('PUT', budget, who.op, { daily_micros: -1 }), 400, 'invalid_request');
    assertError(await r.send('PUT', `${ADMIN}/accounts/acc_none/budget`, who.op, {}), 404, 'not_found');
    assertError(await r.send('PUT', budget, who.plain, { daily_micros: null }), 403, 'forbidden');
    const listed = (await r.get(`${ADMIN}/accounts/${who.user.id}`, who.op)).json();
    assert.deepEqual(listed.budget, { daily_micros: 50_000, monthly_micros: null });

    const answer = await r.get(`${ADMIN}/policies`, who.op);
    assert.equal(answer.statusCode, 200, answer.body);
    const { tiers, budgets, currency } = answer.json();
    assert.deepEqual(
      tiers.map((tier: { tier: string; accounts: number }) => [tier.tier, tier.accounts]),
      [
        ['trial', 0],
        ['starter', 0],
        ['standard', 1],
        ['pro', 1],
      ],
    );
    assert.deepEqual(tiers[0], {
      tier: 'trial',
      policy: true,
      models: ['base-image-2'],
      images_per_day: 5,
      images_per_month: null,
      tasks_in_flight: null,
      accounts: 0,
    });
    assert.equal(tiers[3].policy, false);
    assert.equal(currency, 'USD');
    assert.deepEqual(budgets, [
      { id: who.user.id, email: who.user.email, daily_micros: 50_000, monthly_micros: null },
    ]);
    assertError(await r.get(`${ADMIN}/policies`, who.plain), 403, 'forbidden');
    assertError(await r.get(`${ADMIN}/policies`, {}), 401, 'unauthorized');
    // Lifted again for the next test.
    await r.send('PUT', budget, who.op, { daily_micros: null });
  });

  test("upstreams: a pool's refusal and hold, and a provider's open circuit", async () => {
    await t.core.accounts.setTier(who.user.id, 'pro');
    // The upstream refuses the first call with a Retry-After of a minute: the pool holds.
    fake.script({
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '60' },
      json: {
        error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' },
      },
    });
    await r.send('POST', '/api/v1/generate', who.plain, {
      prompt: 'held',
      model: 'limited',
      imageSize: '1K',
    });
    const held = await until(
      async () => (await r.get(`${ADMIN}/upstreams`, who.op)).json(),
      // The refusal is counted as the call's slot ends; the task is parked in its own write after.
      (state) =>
        state.pools.some(
          (pool: { refused_in_window: number; waiting: number }) =>
            pool.refused_in_window > 0 && pool.waiting === 1,
        ),
      'the refusal and the parked task show on the pool',
    );
    const pool = held.pools.find((p: { upstream_model: string }) => p.upstream_model === 'gpt-image-1.5');
    assert.equal(pool.provider, 'openai');
    assert.ok(!pool.key.includes(UPSTREAM_KEY) && /^[0-9a-f]{16}$/.test(pool.key), 'a hash, never the key');
    assert.ok(pool.hold_until > held.now + 50_000, 'held for the Retry-After');
    assert.equal(pool.waiting, 1);
    assert.deepEqual(
      held.providers.find((p: { name: string }) => p.name === 'local'),
      {
        name: 'local',
        circuit: null,
        requires_key: false,
        deployment_key: false,
        account_keys: 0,
        queued: 0,
        in_progress: 0,
      },
    );
    const openaiRow = held.providers.find((p: { name: string }) => p.name === 'openai');
    assert.equal(openaiRow.circuit.state, 'closed');
    // Issue 37, item 10: its key and its unfinished task (parked, waiting for a slot) are said.
    assert.deepEqual(
      [openaiRow.requires_key, openaiRow.deployment_key, openaiRow.account_keys],
      [true, true, 0],
    );
    assert.equal(openaiRow.queued + openaiRow.in_progress, 1);
    const gemini = held.providers.find((p: { name: string }) => p.name === 'gemini');
    assert.deepEqual([gemini.deployment_key, gemini.account_keys, gemini.queued], [false, 0, 0]);

    // Five upstream failures in a row open OpenAI's circuit on this node.
    fake.script(
      ...Array.from({ length: 5 }, () => ({
        kind: 'error' as const,
        status: 500,
        json: {
          error: { message: 'The server had an error', type: 'server_error', param: null, code: null },
        },
      })),
    );
    for (const count of [4, 1])
      await r.send('POST', '/api/v1/generate', who.plain, {
        prompt: 'broken',
        model: 'broken',
        imageSize: '1K',
        count,
      });
    const open = await until(
      async () => (await r.get(`${ADMIN}/upstreams`, who.op)).json(),
      (state) =>
        state.providers.some((p: { circuit: { state: string } | null }) => p.circuit?.state === 'open'),
      "OpenAI's circuit opens",
    );
    const openai = open.providers.find((p: { name: string }) => p.name === 'openai');
    assert.ok(openai.circuit.consecutive_failures >= 5);
    assert.ok(openai.circuit.probe_in_ms > 0);
    assertError(await r.get(`${ADMIN}/upstreams`, who.plain), 403, 'forbidden');
    assertError(await r.get(`${ADMIN}/upstreams`, { authorization: 'Basic x' }), 401, 'unauthorized');
  });
});
