import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AdminCatalogWire, AdminRouteTestWire } from '../../src/base/contract/admin-catalog.js';
import { DEFAULT_CATALOG, parseCatalog } from '../../src/capabilities/catalog/index.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { createUpstreamLimit } from '../fakes/providers/upstream-limit.js';
import { assertError, pollUntilFinal, submitGenerate } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { ADMIN, operatorAndUser, requests } from './admin-support.js';

// The catalog at run time on one long-lived app: prices, fallback routes and capacity limits
// changed through the admin API are used by the next request, without a restart; invalid edits are
// refused with the loader's own messages; a stale edit is a conflict; every change is audited.

const OPENAI_KEY = 'sk-catalog-test-key-000000000001';

describe('operator console API: the catalog at run time', () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;
  let r: ReturnType<typeof requests>;
  const read = async () => {
    const res = await r.get(`${ADMIN}/catalog`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<AdminCatalogWire>();
  };
  const patchModel = (id: string, body: Record<string, unknown>) =>
    r.send('PATCH', `${ADMIN}/catalog/models/${id}`, who.op, body);
  const quote = async (model: string, count: number) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/quotes',
      headers: who.plain,
      payload: { prompt: 'a lighthouse at dusk', model, count, imageSize: '1K' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ expected_cost_micros: number }>().expected_cost_micros;
  };

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: OPENAI_KEY, limit: createUpstreamLimit({ latencyMs: 700 }) });
    t = await createTestApp({
      env: {
        ATELIER_OPENAI_BASE_URL: fake.baseUrl,
        ATELIER_OPENAI_API_KEY: OPENAI_KEY,
        ATELIER_LOCAL_LATENCY_MS: '1200',
      },
    });
    who = await operatorAndUser(t);
    r = requests(t);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  test('the document in force is version 1, seeded from the built-in catalog', async () => {
    const catalog = await read();
    assert.equal(catalog.version, 1);
    assert.equal(catalog.source, 'file');
    assert.match(catalog.created_by, /built-in catalog/);
    assert.deepEqual(
      (catalog.document.models as Array<{ id: string }>).map((m) => m.id),
      DEFAULT_CATALOG.models.map((m) => m.id),
    );
  });

  test('a price changed: the next quote uses it', async () => {
    const { version } = await read();
    const cheap = await patchModel('flash', {
      expected_version: version,
      price: { perImage: { '1K': 30_000, '2K': 50_000, '4K': 90_000 } },
    });
    assert.equal(cheap.statusCode, 200, cheap.body);
    assert.equal(cheap.json<AdminCatalogWire>().version, version + 1);
    assert.equal(cheap.json<AdminCatalogWire>().source, 'api');
    assert.equal(await quote('flash', 3), 90_000);
    const dearer = await patchModel('flash', {
      expected_version: version + 1,
      price: { perImage: { '1K': 70_000, '2K': 100_000, '4K': 200_000 } },
    });
    assert.equal(dearer.statusCode, 200, dearer.body);
    assert.equal(await quote('flash', 2), 140_000);
    // The other models keep their price (the local renderer's 0).
    assert.equal(await quote('pro', 2), 0);
  });

  test('a fallback route added: a failing route falls back to it', async () => {
    const current = await read();
    const models = [
      ...(current.document.models as object[]),
      {
        id: 'remote',
        provider: 'openai',
        upstreamModel: 'gpt-image-1.5',
        modes: ['text'],
        sizes: ['1K'],
        price: { perImage: { '1K': 40_000, '2K': 40_000, '4K': 40_000 } },
      },
    ];
    const put = await r.send('PUT', `${ADMIN}/catalog`, who.op, {
      expected_version: current.version,
      document: { ...current.document, models },
    });
    assert.equal(put.statusCode, 200, put.body);
    const added = await patchModel('remote', {
      expected_version: put.json<AdminCatalogWire>().version,
      fallbacks: [{ provider: 'local', upstreamModel: 'local-v1' }],
    });
    assert.equal(added.statusCode, 200, added.body);
    fake.script({ kind: 'error', status: 503, json: { error: { message: 'The server is overloaded' } } });
    const [taskId] = await submitGenerate(t.app, who.user.apiKey, {
      prompt: 'a fox in snow',
      model: 'remote',
      imageSize: '1K',
    });
    const { final } = await pollUntilFinal(t.app, who.user.apiKey, String(taskId));
    assert.equal(final.status, 'completed', JSON.stringify(final));
    const row = await t.core.resources.db
      .selectFrom('tasks')
      .select(['provider', 'fallbacks_json'])
      .where('id', '=', String(taskId))
      .executeTakeFirstOrThrow();
    assert.equal(row.provider, 'local');
    assert.match(String(row.fallbacks_json), /"from":"openai\/gpt-image-1.5","to":"local\/local-v1"/);
  });

  test('invalid edits are refused with the loader’s messages; nothing is stored', async () => {
    const current = await read();
    const bad = { maxInFlight: 0 };
    const refused = await patchModel('pro', { expected_version: current.version, capacity: bad });
    assertError(refused, 400, 'invalid_request');
    const models = (current.document.models as Array<Record<string, unknown>>).map((m) =>
      m.id === 'pro' ? { ...m, capacity: bad } : m,
    );
    const loader = (() => {
      try {
        parseCatalog({ ...current.document, models }, t.core.providers.names(), 'catalog');
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    })();
    assert.match(loader, /models\.\d+\.capacity\.maxInFlight/);
    assert.equal(refused.json().error.message, loader);
    const unknown = await patchModel('pro', {
      expected_version: current.version,
      fallbacks: [{ provider: 'nowhere', upstreamModel: 'x' }],
    });
    assertError(unknown, 400, 'invalid_request');
    assert.match(unknown.json().error.message, /model pro: unknown provider "nowhere"/);
    const noDefault = await r.send('PUT', `${ADMIN}/catalog`, who.op, {
      expected_version: current.version,
      document: { models: [{ id: 'solo', provider: 'local', upstreamModel: 'local-v1', modes: ['text'] }] },
    });
    assertError(noDefault, 400, 'invalid_request');
    assert.match(noDefault.json().error.message, /the catalog must define base-image-2/);
    const providers = await r.send('PUT', `${ADMIN}/catalog`, who.op, {
      expected_version: current.version,
      document: { ...current.document, upstreams: { mine: { baseUrl: 'http://127.0.0.1:9' } } },
    });
    assertError(providers, 400, 'invalid_request');
    assertError(await patchModel('no-such-model', { expected_version: current.version }), 404, 'not_found');
    assert.equal((await read()).version, current.version);
  });

  test('an edit made on an older version is a conflict (409), not a lost update', async () => {
    const current = await read();
    const first = await patchModel('flash', {
      expected_version: current.version,
      lifecycle: { released: '2025-03-01' },
    });
    assert.equal(first.statusCode, 200, first.body);
    const stale = await patchModel('flash', { expected_version: current.version, lifecycle: null });
    assertError(stale, 409, 'conflict');
    const model = ((await read()).document.models as Array<Record<string, unknown>>).find(
      (m) => m.id === 'flash',
    );
    assert.deepEqual(model?.lifecycle, { released: '2025-03-01' });
  });

  test('a capacity limit raised: the pool admits more tasks at once', async () => {
    const current = await read();
    const one = await patchModel('remote', {
      expected_version: current.version,
      capacity: { maxInFlight: 1 },
    });
    assert.equal(one.statusCode, 200, one.body);
    const ids = await submitGenerate(t.app, who.user.apiKey, {
      prompt: 'three cranes',
      model: 'remote',
      count: 3,
      imageSize: '1K',
    });
    const pool = async () =>
      (await t.core.capacity.states()).find(
        (p) => p.provider === 'openai' && p.upstreamModel === 'gpt-image-1.5',
      );
    let most = 0;
    await until(async () => {
      const state = await pool();
      most = Math.max(most, state?.inFlight ?? 0);
      return (state?.waiting ?? 0) >= 1;
    });
    assert.equal(most, 1);
    const raised = await patchModel('remote', {
      expected_version: one.json<AdminCatalogWire>().version,
      capacity: { maxInFlight: 3 },
    });
    assert.equal(raised.statusCode, 200, raised.body);
    await until(async () => ((await pool())?.inFlight ?? 0) >= 2);
    for (const id of ids)
      assert.equal((await pollUntilFinal(t.app, who.user.apiKey, id)).final.status, 'completed');
  });

  test('the test button: one real request through a route, its image or the upstream’s error', async () => {
    const ok = await r.send('POST', `${ADMIN}/catalog/test`, who.op, { route_id: 'openai/gpt-image-1.5' });
    assert.equal(ok.statusCode, 200, ok.body);
    const answer = ok.json<AdminRouteTestWire>();
    assert.equal(answer.ok, true, ok.body);
    assert.equal(answer.model, 'remote');
    assert.equal(answer.image?.content_type, 'image/png');
    assert.ok((answer.image?.width ?? 0) > 0);
    assert.match(String(answer.image?.preview_url), /^data:image\/png;base64,/);
    assert.equal(answer.cost_usd, 0.04);
    assert.equal(fake.calls.at(-1)?.params.prompt, answer.request.prompt);
    fake.script({
      kind: 'error',
      status: 400,
      json: {
        error: { message: 'Your request was rejected by the safety system', code: 'moderation_blocked' },
      },
    });
    const refused = await r.send('POST', `${ADMIN}/catalog/test`, who.op, {
      route_id: 'openai/gpt-image-1.5',
    });
    assert.equal(refused.statusCode, 200, refused.body);
    assert.equal(refused.json<AdminRouteTestWire>().ok, false);
    assert.match(String(refused.json<AdminRouteTestWire>().error?.message), /safety system/);
    const local = await r.send('POST', `${ADMIN}/catalog/test`, who.op, { route_id: 'local/local-v1' });
    assert.equal(local.json<AdminRouteTestWire>().image?.width, 1024);
    assertError(
      await r.send('POST', `${ADMIN}/catalog/test`, who.op, { route_id: 'openai/none' }),
      404,
      'not_found',
    );
    assertError(
      await r.send('POST', `${ADMIN}/catalog/test`, who.plain, { route_id: 'local/local-v1' }),
      403,
      'forbidden',
    );
  });

  test('the history lists every version; one version is read with its document', async () => {
    const { version } = await read();
    const res = await r.get(`${ADMIN}/catalog/versions?limit=100`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    const items = res.json<{ items: Array<{ version: number; source: string }> }>().items;
    assert.deepEqual(
      items.map((item) => item.version),
      Array.from({ length: version }, (_, i) => version - i),
    );
    assert.equal(items.at(-1)?.source, 'file');
    const first = await r.get(`${ADMIN}/catalog/versions/1`, who.op);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json<AdminCatalogWire>().version, 1);
    assertError(await r.get(`${ADMIN}/catalog/versions/${version + 5}`, who.op), 404, 'not_found');
  });

  test('every change and every test is in the audit log, with before and after', async () => {
    const res = await r.get(`${ADMIN}/audit?limit=200`, who.op);
    const events = res.json<{ items: Array<Record<string, unknown>> }>().items;
    const updates = events.filter((e) => e.action === 'catalog.update');
    const { version } = await read();
    assert.equal(updates.length, version - 1);
    const priced = updates.find(
      (e) =>
        JSON.stringify(e.after).includes('"1K":30000') && JSON.stringify(e.before).includes('"id":"flash"'),
    );
    assert.ok(priced, 'the price change is recorded');
    assert.equal(priced.actor, who.operator.email);
    const tests = events.filter((e) => e.action === 'catalog.route.test');
    assert.equal(tests.length, 3);
    assert.ok(
      tests.some(
        (e) => e.target_id === 'openai/gpt-image-1.5' && (e.after as { cost_usd: number }).cost_usd === 0.04,
      ),
    );
  });
});

/** Waits until `condition` holds (the store's state, read again each turn of a short wait). */
async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
