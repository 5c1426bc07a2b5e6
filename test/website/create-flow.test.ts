import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { TEST_ORIGIN as ORIGIN, sessionCookieOf } from '../support/website-session.js';
import { PASSWORD, signIn } from './website-sign-in.js';

/**
 * Issue 30, the creation view's helpers: the cards' estimate (median of recent durations per
 * model and size), recent prompts (distinct, searchable, server-side), named presets (per account),
 * a card's references (a re-run sends them again) and cancel from the website's session.
 */
describe('web create flow: estimates, recent prompts, presets, cancel', () => {
  let t: TestApp;
  let apiKey: string;
  let cookie: string;
  let otherCookie: string;
  const web = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, payload?: unknown, as = cookie) =>
    t.app.inject({
      method,
      url,
      headers: { cookie: as, origin: ORIGIN },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  before(async () => {
    t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '30' } });
    const account = await t.createAccount(undefined, { password: PASSWORD });
    apiKey = account.apiKey;
    cookie = sessionCookieOf(await signIn(t, account.email));
    const other = await t.createAccount(undefined, { password: PASSWORD });
    otherCookie = sessionCookieOf(await signIn(t, other.email));
  });
  after(() => t.close());

  const generate = async (prompt: string, imageSize = '1K', count = 1) => {
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt, imageSize, count },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    const ids = (answer.json() as { task_ids: string[] }).task_ids;
    for (const id of ids) await pollUntilFinal(t.app, apiKey, id);
    return ids;
  };

  test('estimates: the median of completed tasks per model and size, from the stored times', async () => {
    assert.deepEqual((await web('GET', '/web/api/tasks/estimates')).json(), { estimates: [] });
    const ids = [
      ...(await generate('a quiet harbour at dawn')),
      ...(await generate('a quiet harbour at dusk')),
      ...(await generate('a tram in the fog')),
      ...(await generate('a tram in the fog', '2K')),
    ];
    const rows = await t.core.resources.db
      .selectFrom('tasks')
      .innerJoin('generations', 'generations.id', 'tasks.generation_id')
      .select(['tasks.id', 'tasks.created_at', 'tasks.finished_at', 'generations.image_size'])
      .where('tasks.id', 'in', ids)
      .execute();
    const durations = (size: string) =>
      rows
        .filter((row) => row.image_size === size)
        .map((row) => Number(row.finished_at) - Number(row.created_at))
        .sort((a, b) => a - b);
    const oneK = durations('1K');
    assert.equal(oneK.length, 3);
    const { estimates } = (await web('GET', '/web/api/tasks/estimates')).json() as {
      estimates: Array<{ model: string; imageSize: string; median_ms: number; samples: number }>;
    };
    const bySize = new Map(estimates.map((e) => [e.imageSize, e]));
    assert.equal(bySize.get('1K')?.median_ms, oneK[1]);
    assert.equal(bySize.get('1K')?.samples, 3);
    assert.equal(bySize.get('2K')?.median_ms, durations('2K')[0]);
    assert.equal(bySize.get('2K')?.samples, 1);
    // Another account's history is not this one's.
    assert.deepEqual((await web('GET', '/web/api/tasks/estimates', undefined, otherCookie)).json(), {
      estimates: [],
    });
  });

  test('recent prompts: distinct, newest first, searchable by word beginnings', async () => {
    const all = (await web('GET', '/web/api/prompts')).json() as { prompts: string[] };
    assert.deepEqual(all.prompts, [
      'a tram in the fog',
      'a quiet harbour at dusk',
      'a quiet harbour at dawn',
    ]);
    const found = (await web('GET', '/web/api/prompts?q=harb%20DU')).json() as { prompts: string[] };
    assert.deepEqual(found.prompts, ['a quiet harbour at dusk']);
    const one = (await web('GET', '/web/api/prompts?limit=1')).json() as { prompts: string[] };
    assert.deepEqual(one.prompts, ['a tram in the fog']);
    assert.equal((await web('GET', '/web/api/prompts?limit=0')).statusCode, 400);
    assert.deepEqual((await web('GET', '/web/api/prompts', undefined, otherCookie)).json(), { prompts: [] });
  });

  test('presets: save, replace, list by name, delete; per account; checked', async () => {
    const settings = { model: 'flash', aspect: '16:9', imageSize: '1K', count: 4, suffix: ', watercolour' };
    const saved = await web('PUT', `/web/api/presets/${encodeURIComponent('Wide sketches')}`, settings);
    assert.equal(saved.statusCode, 200, saved.body);
    assert.equal(saved.json().name, 'Wide sketches');
    await web('PUT', '/web/api/presets/Album', { ...settings, aspect: '1:1', count: 2 });
    await web('PUT', '/web/api/presets/Album', { ...settings, aspect: '1:1', count: 1 });
    const { presets } = (await web('GET', '/web/api/presets')).json() as {
      presets: Array<{ name: string; count: number; suffix?: string }>;
    };
    assert.deepEqual(
      presets.map((p) => [p.name, p.count]),
      [
        ['Album', 1],
        ['Wide sketches', 4],
      ],
    );
    assert.equal(presets[1]?.suffix, ', watercolour');
    assert.deepEqual((await web('GET', '/web/api/presets', undefined, otherCookie)).json(), { presets: [] });
    const bad = await web('PUT', '/web/api/presets/Bad', { ...settings, count: 0 });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.type, 'invalid_request');
    // A cross-site write is refused like every other website write.
    const forged = await t.app.inject({
      method: 'PUT',
      url: '/web/api/presets/Forged',
      headers: { cookie, origin: 'http://evil.test' },
      payload: settings,
    });
    assert.equal(forged.statusCode, 403);
    assert.equal((await web('DELETE', '/web/api/presets/Album')).statusCode, 204);
    assert.equal((await web('DELETE', '/web/api/presets/Album')).statusCode, 404);
    const left = (await web('GET', '/web/api/presets')).json() as { presets: Array<{ name: string }> };
    assert.deepEqual(
      left.presets.map((p) => p.name),
      ['Wide sketches'],
    );
  });

  test("the pending cards carry the generation's references; the session cancels a queued task", async () => {
    const slow = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '600000' } });
    try {
      const account = await slow.createAccount(undefined, { password: PASSWORD });
      const session = sessionCookieOf(await signIn(slow, account.email));
      const answer = await slow.app.inject({
        method: 'POST',
        url: '/web/api/generate',
        headers: { cookie: session, origin: ORIGIN },
        payload: { prompt: 'a kite', imageSize: '1K', count: 2 },
      });
      assert.equal(answer.statusCode, 200, answer.body);
      const [first] = (answer.json() as { task_ids: string[] }).task_ids;
      const listing = (
        await slow.app.inject({ method: 'GET', url: '/web/api/tasks/pending', headers: { cookie: session } })
      ).json() as { tasks: Array<{ task_id: string; refs: string[] }> };
      assert.equal(listing.tasks.length, 2);
      for (const card of listing.tasks) assert.deepEqual(card.refs, []);
      const cancel = (origin: string) =>
        slow.app.inject({
          method: 'POST',
          url: `/api/v1/tasks/${first}/cancel`,
          headers: { cookie: session, origin },
        });
      assert.equal((await cancel('http://evil.test')).statusCode, 403);
      const canceled = await cancel(ORIGIN);
      assert.equal(canceled.statusCode, 200, canceled.body);
      assert.equal(canceled.json().status, 'failed');
      assert.equal(canceled.json().error, 'Canceled');
    } finally {
      await slow.close();
    }
  });
});
