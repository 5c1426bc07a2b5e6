import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { sessionCookieOf } from '../support/website-session.js';

const ORIGIN = 'http://127.0.0.1:8080'; // the test app's public base URL
const PASSWORD = 'correct horse battery';

describe('creation view across reloads, and search of saved works and the library', () => {
  let t: TestApp;
  let apiKey: string;
  let cookie: string;
  const taskIds: Record<string, string> = {};

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
  const generate = async (name: string, payload: Record<string, unknown>) => {
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { imageSize: '1K', ...payload },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    const id = (answer.json() as { task_ids: string[] }).task_ids[0] ?? '';
    taskIds[name] = id;
    await pollUntilFinal(t.app, apiKey, id);
  };

  before(async () => {
    t = await createTestApp();
    const account = await t.createAccount(undefined, { password: PASSWORD });
    apiKey = account.apiKey;
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/web/api/session',
      headers: { origin: ORIGIN },
      payload: { email: account.email, password: PASSWORD },
    });
    cookie = sessionCookieOf(signIn);
    await generate('lighthouse', { prompt: 'A Lighthouse in 100% fog' });
    await generate('orchard', { prompt: 'an apple orchard at dawn', aspect: '16:9' });
  });
  after(() => t?.close());

  test('a first listing (a reload) shows the finished tasks of the last day, not only unfinished ones', async () => {
    const listing = await get('/web/api/tasks/pending');
    assert.equal(listing.statusCode, 200, listing.body);
    const body = listing.json() as {
      clearedAt: number | null;
      tasks: Array<{ task_id: string; status: string }>;
    };
    assert.equal(body.clearedAt, null);
    assert.deepEqual(body.tasks.map((task) => task.task_id).sort(), Object.values(taskIds).sort());
    assert.ok(body.tasks.every((task) => task.status === 'completed'));
  });

  test('cleared cards stay cleared at the next listing, and tasks finishing later still show', async () => {
    const refused = await t.app.inject({
      method: 'POST',
      url: '/web/api/tasks/cleared',
      headers: { cookie },
    });
    assertError(refused, 403, 'forbidden');
    const cleared = await t.app.inject({
      method: 'POST',
      url: '/web/api/tasks/cleared',
      headers: { cookie, origin: ORIGIN },
    });
    assert.equal(cleared.statusCode, 200, cleared.body);
    const { clearedAt } = cleared.json() as { clearedAt: number };
    const after = (await get('/web/api/tasks/pending')).json() as { clearedAt: number; tasks: unknown[] };
    assert.equal(after.clearedAt, clearedAt);
    assert.deepEqual(after.tasks, [], 'a reload does not bring cleared cards back');
    const since = (await get('/web/api/tasks/pending?since=0')).json() as { tasks: unknown[] };
    assert.deepEqual(since.tasks, [], 'nor does a listing with since');

    await generate('river', { prompt: 'a river after the clear' });
    const later = (await get('/web/api/tasks/pending')).json() as { tasks: Array<{ task_id: string }> };
    assert.deepEqual(
      later.tasks.map((task) => task.task_id),
      [taskIds.river],
    );

    // A day later it has left the creation view (it stays in saved works).
    const dayAgo = Date.now() - 24 * 60 * 60 * 1000 - 60_000;
    await t.core.resources.db
      .updateTable('tasks')
      .set({ created_at: dayAgo })
      .where('id', '=', taskIds.river ?? '')
      .execute();
    const nextDay = (await get('/web/api/tasks/pending')).json() as { tasks: unknown[] };
    assert.deepEqual(nextDay.tasks, [], 'the first listing reaches back one day');
  });

  test('saved works: search by prompt words (prefixes, any order, case-insensitive), model, mode and dates', async () => {
    const ids = async (query: string) => {
      const answer = await get(`/web/api/works?${query}`);
      assert.equal(answer.statusCode, 200, answer.body);
      const page = answer.json() as { total: number; items: Array<{ prompt: string }> };
      assert.equal(page.total, page.items.length);
      return page.items.map((item) => item.prompt);
    };
    assert.deepEqual(await ids('q=lighthouse'), ['A Lighthouse in 100% fog']);
    assert.deepEqual(await ids('q=100%25'), ['A Lighthouse in 100% fog'], 'punctuation separates words');
    // Issue 25, item 10: a full-text index of words replaces the substring scan (docs/website.md).
    assert.deepEqual(await ids('q=LIGHT'), ['A Lighthouse in 100% fog'], 'a word prefix');
    assert.deepEqual(await ids('q=fog%20lighthouse'), ['A Lighthouse in 100% fog'], 'every word, any order');
    assert.deepEqual(await ids('q=house'), [], 'the inside of a word is not a match');
    assert.deepEqual(await ids('q=%25_'), [], 'a query without a word finds nothing');
    assert.deepEqual(await ids('q=orchard&mode=text&model=base-image-2'), ['an apple orchard at dawn']);
    assert.deepEqual(await ids('q=orchard&mode=edit'), []);
    assert.deepEqual(await ids('model=nope'), []);
    assert.equal((await ids('q=')).length, 3, 'an empty query is no filter');
    assert.equal((await ids(`from=0&to=${Date.now() + 60_000}`)).length, 3);
    assert.deepEqual(await ids(`from=${Date.now() + 60_000}`), []);
    const paged = (await get('/web/api/works?q=a&limit=1&page=2')).json() as {
      total: number;
      items: unknown[];
    };
    assert.equal(paged.total, 3);
    assert.equal(paged.items.length, 1);
    assertError(await get('/web/api/works?mode=paint'), 400, 'invalid_request');
    assertError(await get('/web/api/works?from=yesterday'), 400, 'invalid_request');
  });

  test('library: the same search on results; prompt filters leave uploads out', async () => {
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: await makePng(40, 30),
    });
    assert.equal(upload.statusCode, 200, upload.body);
    const search = (await get('/web/api/assets?q=ORCHARD')).json() as {
      total: number;
      items: Array<{ prompt: string | null; kind: string }>;
    };
    assert.deepEqual(
      search.items.map((item) => [item.kind, item.prompt]),
      [['result', 'an apple orchard at dawn']],
    );
    const all = (await get('/web/api/assets')).json() as { total: number; items: Array<{ kind: string }> };
    assert.equal(all.total, 4, 'three results and the upload');
    const dated = (await get(`/web/api/assets?from=0&kind=upload`)).json() as { total: number };
    assert.equal(dated.total, 1, 'a date filter keeps uploads');
  });
});
