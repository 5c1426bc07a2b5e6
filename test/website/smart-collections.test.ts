import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_SMART_COLLECTIONS } from '../../src/base/contract/smart-collections.js';
import { bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { TEST_ORIGIN as ORIGIN, sessionCookieOf } from '../support/website-session.js';
import { PASSWORD, signIn } from './website-sign-in.js';

const PATH = '/web/api/smart-collections';

/**
 * Issue 37, smart collections: saved searches of Saved works, per account, through the website's
 * API — saved with their filters normalised, renamed, changed, deleted; refused when malformed; and
 * never seen, changed or deleted by another account.
 */
describe('web smart collections (saved searches)', () => {
  let t: TestApp;
  let apiKey: string;
  let cookie: string;
  let otherCookie: string;
  const web = (
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
    as = cookie,
  ) =>
    t.app.inject({
      method,
      url,
      headers: { cookie: as, origin: ORIGIN },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const list = async (as = cookie) => {
    const answer = await web('GET', PATH, undefined, as);
    assert.equal(answer.statusCode, 200, answer.body);
    return (answer.json() as { items: Array<{ id: string; name: string; filters: Record<string, unknown> }> })
      .items;
  };

  before(async () => {
    t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '20' } });
    const account = await t.createAccount(undefined, { password: PASSWORD });
    apiKey = account.apiKey;
    cookie = sessionCookieOf(await signIn(t, account.email));
    const other = await t.createAccount(undefined, { password: PASSWORD });
    otherCookie = sessionCookieOf(await signIn(t, other.email));
  });
  after(() => t.close());

  const generate = async (prompt: string, mode = 'text') => {
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt, imageSize: '1K', mode },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    const [taskId] = (answer.json() as { task_ids: string[] }).task_ids;
    await pollUntilFinal(t.app, apiKey, taskId ?? '');
    const works = (await web('GET', `/web/api/works?q=${encodeURIComponent(prompt)}`)).json() as {
      items: Array<{ id: string; prompt: string }>;
    };
    const work = works.items.find((w) => w.prompt === prompt);
    assert.ok(work, prompt);
    return work.id;
  };

  test('a saved search keeps its filters (trimmed, empty ones dropped) and opens the same works', async () => {
    assert.deepEqual(await list(), []);
    const lighthouse = await generate('a lighthouse in a storm, long exposure');
    await generate('a lighthouse at noon');
    await generate('[[fail]] a lighthouse that never was');
    const made = await web('POST', '/web/api/collections', { name: 'Coast' });
    const collection = (made.json() as { id: string }).id;
    assert.equal(
      (await web('PUT', `/web/api/collections/${collection}/items/${lighthouse}`)).statusCode,
      204,
    );
    assert.equal((await web('PUT', `/web/api/works/${lighthouse}/star`)).statusCode, 204);

    const saved = await web('POST', PATH, {
      name: '  Storm lights ',
      filters: {
        q: ' lighthouse ',
        model: '',
        mode: 'text',
        starred: true,
        collection,
        from: '2020-01-01',
        to: '',
      },
      extra: 'ignored',
    });
    assert.equal(saved.statusCode, 201, saved.body);
    const smart = saved.json() as { id: string; name: string; filters: Record<string, unknown> };
    assert.match(smart.id, /^scl_/);
    assert.equal(smart.name, 'Storm lights');
    assert.deepEqual(smart.filters, {
      q: 'lighthouse',
      mode: 'text',
      from: '2020-01-01',
      starred: true,
      collection,
    });
    assert.deepEqual(await list(), [
      {
        ...smart,
        createdAt: (saved.json() as { createdAt: number }).createdAt,
        updatedAt: (saved.json() as { updatedAt: number }).updatedAt,
      },
    ]);

    // The saved filters are the listing's own query fields: opened, they show the starred work only.
    const { q, mode, starred } = smart.filters as { q: string; mode: string; starred: boolean };
    const opened = await web(
      'GET',
      `/web/api/works?q=${q}&mode=${mode}&starred=${starred}&collection=${collection}`,
    );
    assert.deepEqual(
      (opened.json() as { items: Array<{ id: string }> }).items.map((w) => w.id),
      [lighthouse],
    );
  });

  test('malformed saves are refused with the field named, and a name is unique ignoring case', async () => {
    const refused = async (payload: unknown, field: RegExp, status = 400) => {
      const answer = await web('POST', PATH, payload);
      assert.equal(answer.statusCode, status, answer.body);
      const body = answer.json() as { error: { type: string; message: string } };
      assert.equal(body.error.type, status === 400 ? 'invalid_request' : 'conflict');
      assert.match(body.error.message, field);
    };
    await refused({ name: 'Nothing', filters: {} }, /at least one filter/);
    await refused({ name: 'Nothing', filters: { q: '  ', mode: '' } }, /at least one filter/);
    await refused({ name: 'Leap', filters: { from: '2026-02-30' } }, /from.*YYYY-MM-DD/);
    await refused({ name: 'Paint', filters: { mode: 'paint' } }, /mode/);
    await refused({ name: 'Stars', filters: { starred: 'yes' } }, /starred/);
    await refused({ name: ' ', filters: { q: 'x' } }, /name/);
    await refused({ name: 'x'.repeat(101), filters: { q: 'x' } }, /name/);
    await refused({ filters: { q: 'x' } }, /name/);
    await refused({ name: 'No filters' }, /filters/);
    await refused({ name: 'Theirs', filters: { collection: 'col_nobody' } }, /collection/);
    await refused({ name: 'storm LIGHTS', filters: { q: 'storm' } }, /already exists/, 409);
    // Without the site's Origin, nothing is saved.
    const forged = await t.app.inject({
      method: 'POST',
      url: PATH,
      headers: { cookie },
      payload: { name: 'F', filters: { q: 'f' } },
    });
    assert.equal(forged.statusCode, 403);
    assert.equal((await list()).length, 1);
  });

  test('renamed, given another search, and deleted; two saves of one name at once: one wins', async () => {
    const [first] = await list();
    assert.ok(first);
    const dusk = (await web('POST', PATH, { name: 'Dusk', filters: { q: 'dusk' } })).json() as { id: string };
    assert.equal((await web('PATCH', `${PATH}/${dusk.id}`, { name: 'STORM lights' })).statusCode, 409);
    assert.equal((await web('PATCH', `${PATH}/${dusk.id}`, {})).statusCode, 400);
    const renamed = await web('PATCH', `${PATH}/${dusk.id}`, { name: 'Evenings' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.deepEqual((renamed.json() as { filters: unknown }).filters, { q: 'dusk' });
    const changed = await web('PATCH', `${PATH}/${dusk.id}`, { filters: { mode: 'edit', to: '2026-12-31' } });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(
      (await list()).map((s) => [s.name, s.filters]),
      [
        ['Evenings', { mode: 'edit', to: '2026-12-31' }],
        ['Storm lights', first.filters],
      ],
    );
    // Only the case of its own name changes: no clash with itself.
    assert.equal((await web('PATCH', `${PATH}/${dusk.id}`, { name: 'EVENINGS' })).statusCode, 200);

    const racing = await Promise.all(
      [1, 2].map(() => web('POST', PATH, { name: 'Race', filters: { q: 'r' } })),
    );
    assert.deepEqual(racing.map((r) => r.statusCode).sort(), [201, 409]);

    assert.equal((await web('DELETE', `${PATH}/${dusk.id}`)).statusCode, 204);
    assert.equal((await web('DELETE', `${PATH}/${dusk.id}`)).statusCode, 404);
    assert.equal((await web('PATCH', `${PATH}/${dusk.id}`, { name: 'Back' })).statusCode, 404);
    assert.deepEqual(
      (await list()).map((s) => s.name),
      ['Race', 'Storm lights'],
    );
  });

  test('another account never sees, changes or deletes them, and its names are its own', async () => {
    const mine = await list();
    assert.equal(mine.length, 2);
    assert.deepEqual(await list(otherCookie), []);
    for (const smart of mine) {
      const renamed = await web('PATCH', `${PATH}/${smart.id}`, { name: 'Taken' }, otherCookie);
      assert.equal(renamed.statusCode, 404, renamed.body);
      assert.doesNotMatch(renamed.body, new RegExp(smart.name));
      assert.equal((await web('DELETE', `${PATH}/${smart.id}`, undefined, otherCookie)).statusCode, 404);
    }
    // Nor can it save a search of the first account's collection.
    const [coast] = ((await web('GET', '/web/api/collections')).json() as { items: Array<{ id: string }> })
      .items;
    const theirs = await web(
      'POST',
      PATH,
      { name: 'Coast', filters: { collection: coast?.id } },
      otherCookie,
    );
    assert.equal(theirs.statusCode, 400, theirs.body);
    const same = await web('POST', PATH, { name: 'Storm lights', filters: { q: 'mine' } }, otherCookie);
    assert.equal(same.statusCode, 201, same.body);
    assert.deepEqual(
      (await list(otherCookie)).map((s) => s.name),
      ['Storm lights'],
    );
    assert.deepEqual(await list(), mine);
    assert.equal((await t.app.inject({ method: 'GET', url: PATH })).statusCode, 401);
  });

  test(`an account keeps at most ${MAX_SMART_COLLECTIONS}`, async () => {
    const held = (await list()).length;
    for (let i = held; i < MAX_SMART_COLLECTIONS; i++) {
      const answer = await web('POST', PATH, { name: `Search ${i}`, filters: { q: `word${i}` } });
      assert.equal(answer.statusCode, 201, answer.body);
    }
    const past = await web('POST', PATH, { name: 'One more', filters: { q: 'more' } });
    assert.equal(past.statusCode, 409, past.body);
    assert.match(past.body, /at most/);
    assert.equal((await list()).length, MAX_SMART_COLLECTIONS);
    assert.equal((await list(otherCookie)).length, 1);
  });
});
