import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { installErrorHandling } from '../../src/edges/http/error-handler.js';
import { staticSite } from '../../src/edges/website/static-site.js';
import { assertError, bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { TEST_ORIGIN as ORIGIN, sessionCookieOf } from '../support/website-session.js';
import { PASSWORD, signIn } from './website-sign-in.js';

describe('web endpoints: generate, pending tasks, saved works, library, account', () => {
  let t: TestApp;
  let apiKey: string;
  let cookie: string;
  const web = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie, origin: ORIGIN }, ...(payload ? { payload } : {}) });

  before(async () => {
    t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '600' } });
    const account = await t.createAccount(undefined, { password: PASSWORD });
    apiKey = account.apiKey;
    cookie = sessionCookieOf(await signIn(t, account.email));
  });
  after(() => t.close());

  test('pending tasks include API-submitted ones, labelled by source; `since` (default: a day ago) keeps recently finished ones', async () => {
    const fromApi = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'from the api', imageSize: '1K', aspect: '16:9' },
    });
    const fromWeb = await web('POST', '/web/api/generate', {
      prompt: 'from the web',
      imageSize: '1K',
      count: 2,
    });
    assert.equal(fromWeb.statusCode, 200, fromWeb.body);
    const apiTask = fromApi.json().task_ids[0] as string;
    const webTasks = fromWeb.json().task_ids as string[];

    const listing = await web('GET', '/web/api/tasks/pending');
    assert.equal(listing.statusCode, 200);
    const body = listing.json();
    assert.equal(typeof body.now, 'number');
    const byId = new Map(body.tasks.map((task: { task_id: string }) => [task.task_id, task]));
    assert.deepEqual(
      { ...(byId.get(apiTask) as object), status: 'x', progress: 0, createdAt: 0 },
      {
        task_id: apiTask,
        status: 'x',
        progress: 0,
        generation_id: (byId.get(apiTask) as { generation_id: string }).generation_id,
        source: 'api',
        prompt: 'from the api',
        model: 'base-image-2',
        mode: 'text',
        aspect: '16:9',
        imageSize: '1K',
        index: 0,
        count: 1,
        createdAt: 0,
        refs: [],
      },
    );
    assert.equal((byId.get(webTasks[1] as string) as { source: string; index: number }).source, 'web');

    for (const id of [apiTask, ...webTasks]) await pollUntilFinal(t.app, apiKey, id);
    const afterwards = await web('GET', '/web/api/tasks/pending');
    assert.equal(afterwards.json().tasks.length, 3, "a first listing keeps the last day's finished tasks");
    const later = await web('GET', `/web/api/tasks/pending?since=${body.now + 60_000}`);
    assert.deepEqual(later.json().tasks, [], 'finished tasks created before `since` leave the listing');
    const since = await web('GET', `/web/api/tasks/pending?since=${body.now - 60_000}`);
    const finished = since.json().tasks as Array<{ task_id: string; status: string; imageUrl?: string }>;
    assert.equal(finished.length, 3);
    assert.ok(finished.every((task) => task.status === 'completed' && task.imageUrl?.startsWith('http')));
    assertError(await web('GET', '/web/api/tasks/pending?since=soon'), 400, 'invalid_request');
  });

  test('bad input is refused by the route schemas with messages naming the parameter', async () => {
    const cases: Array<[ReturnType<typeof web>, string]> = [
      [
        web('GET', '/web/api/tasks/pending?since=soon'),
        'since must be a time in milliseconds since the epoch',
      ],
      [web('GET', '/web/api/works?page=0'), 'page must be at least 1'],
      [web('GET', '/web/api/works?limit=x'), 'limit must be an integer'],
      [web('GET', '/web/api/assets?limit=51'), 'limit must be between 1 and 50'],
      [web('GET', '/web/api/assets?kind=video'), 'kind must be upload or result'],
      [web('PUT', '/web/api/account/upstream-keys/gemini', {}), 'key is required'],
      [
        web('PUT', '/web/api/account/upstream-keys/gemini', { key: ' ' }),
        'key must not be empty (to remove a key, DELETE it)',
      ],
      [
        web('DELETE', '/web/api/account/upstream-keys/local'),
        'provider must be one of fal, gemini, openai, replicate',
      ],
      [web('POST', '/web/api/generate', { prompt: 'x', count: 1.5 }), 'count must be an integer'],
    ];
    for (const [answer, message] of cases)
      assert.equal(assertError(await answer, 400, 'invalid_request'), message);
    // An empty number is refused like any non-integer (docs/api.md); absent ones take their
    // defaults; a huge page is an empty page, echoed as asked.
    assert.equal(
      assertError(await web('GET', '/web/api/works?limit='), 400, 'invalid_request'),
      'limit must be an integer',
    );
    const works = await web('GET', '/web/api/works?page=99999999999999999999&since=');
    assert.equal(works.statusCode, 200, works.body);
    assert.deepEqual(
      { ...(works.json() as object), total: 0, total_pages: 0 },
      { items: [], total: 0, page: Number.MAX_SAFE_INTEGER, limit: 24, total_pages: 0 },
    );
    const pending = await web('GET', '/web/api/tasks/pending?since=');
    assert.equal(pending.statusCode, 200, pending.body);
  });

  test('web generate validates like the API and answers its errors in the same shape', async () => {
    const response = await web('POST', '/web/api/generate', { prompt: 'x', mode: 'fusion' });
    assert.match(assertError(response, 400, 'invalid_request'), /fusion/);
  });

  test('delete: gone from saved works and the library, marked removed in history', async () => {
    const first = await web('POST', '/web/api/generate', { prompt: 'keep me', imageSize: '1K' });
    const second = await web('POST', '/web/api/generate', { prompt: 'delete me', imageSize: '1K' });
    await pollUntilFinal(t.app, apiKey, first.json().task_ids[0]);
    await pollUntilFinal(t.app, apiKey, second.json().task_ids[0]);

    const works = (await web('GET', '/web/api/works')).json();
    const target = works.items.find((w: { prompt: string }) => w.prompt === 'delete me');
    assert.ok(target);
    assert.equal(target.source, 'web');
    assert.equal(target.tasks[0].status, 'completed');
    const historyBefore = (
      await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) })
    ).json();
    const libraryBefore = (await web('GET', '/web/api/assets?kind=result')).json();

    assert.equal((await web('DELETE', `/web/api/works/${target.id}`)).statusCode, 204);
    assert.equal(
      (await web('DELETE', `/web/api/works/${target.id}`)).statusCode,
      204,
      'deleting twice is harmless',
    );

    const worksAfter = (await web('GET', '/web/api/works')).json();
    assert.equal(worksAfter.total, works.total - 1);
    assert.ok(!worksAfter.items.some((w: { id: string }) => w.id === target.id));

    const history = (
      await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(apiKey) })
    ).json();
    assert.equal(history.total, historyBefore.total, 'history keeps the row');
    const removed = history.items.find((i: { id: string }) => i.id === target.id);
    assert.equal(removed.removed, true);
    assert.equal(removed.images.length, 1, 'its images are still listed');
    const kept = history.items.find((i: { prompt: string }) => i.prompt === 'keep me');
    assert.equal('removed' in kept, false, 'only removed items carry the field');

    const library = (await web('GET', '/web/api/assets?kind=result')).json();
    assert.equal(library.total, libraryBefore.total - 1);
    assert.ok(!library.items.some((a: { generationId: string }) => a.generationId === target.id));
    const file = await t.app.inject({ method: 'GET', url: new URL(removed.images[0]).pathname });
    assert.equal(file.statusCode, 200, 'the file stays at its URL');
  });

  test('delete of an unknown or foreign work is 404; the web API takes no bearer keys', async () => {
    assertError(await web('DELETE', '/web/api/works/gen_nope'), 404, 'not_found');
    const other = await t.createAccount(undefined, { password: PASSWORD });
    const otherCookie = sessionCookieOf(await signIn(t, other.email));
    const mine = (await web('GET', '/web/api/works')).json().items[0].id as string;
    const foreign = await t.app.inject({
      method: 'DELETE',
      url: `/web/api/works/${mine}`,
      headers: { cookie: otherCookie, origin: ORIGIN },
    });
    assertError(foreign, 404, 'not_found');
    const withKey = await t.app.inject({ method: 'GET', url: '/web/api/works', headers: bearer(apiKey) });
    assertError(withKey, 401, 'unauthorized');
  });

  test('library lists uploads and results with their prompt; kind filters', async () => {
    const png = await (await import('sharp'))
      .default({
        create: { width: 40, height: 30, channels: 3, background: '#3366aa' },
      })
      .png()
      .toBuffer();
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { cookie, origin: ORIGIN, 'content-type': 'image/png' },
      payload: png,
    });
    assert.equal(upload.statusCode, 200, upload.body);
    const uploads = (await web('GET', '/web/api/assets?kind=upload')).json();
    assert.equal(uploads.total, 1);
    assert.deepEqual(
      {
        kind: uploads.items[0].kind,
        width: uploads.items[0].width,
        height: uploads.items[0].height,
        prompt: uploads.items[0].prompt,
      },
      { kind: 'upload', width: 40, height: 30, prompt: null },
    );
    const results = (await web('GET', '/web/api/assets?kind=result')).json();
    assert.ok(
      results.items.every(
        (a: { kind: string; prompt: string }) => a.kind === 'result' && a.prompt.length > 0,
      ),
    );
    const all = (await web('GET', '/web/api/assets')).json();
    assert.equal(all.total, uploads.total + results.total);
    assertError(await web('GET', '/web/api/assets?kind=video'), 400, 'invalid_request');
  });

  test('account: upstream key set and removed (never shown back), API key rotated', async () => {
    const account = (await web('GET', '/web/api/account')).json();
    assert.equal(account.has_key, true, 'the local renderer needs no key');
    assert.equal(account.upstream.key_required, false);
    assert.equal(account.upstream.default_provider, 'local');
    assert.ok(account.upstream.providers.some((p: { name: string }) => p.name === 'gemini'));
    assert.ok(!account.upstream.providers.some((p: { name: string }) => p.name === 'local'));
    assert.equal(account.base_url, ORIGIN);
    assert.match(
      account.api_key_hint,
      /^atl_[\w-]{4}…$/,
      'a key made since several keys: its first characters',
    );

    assert.equal(
      (await web('PUT', '/web/api/account/upstream-keys/gemini', { key: 'sk-secret-value' })).statusCode,
      204,
    );
    const withKey = await web('GET', '/web/api/account');
    assert.ok(!withKey.body.includes('sk-secret-value'));
    assert.equal(
      withKey.json().upstream.providers.find((p: { name: string }) => p.name === 'gemini').own_key,
      true,
    );
    assertError(
      await web('PUT', '/web/api/account/upstream-keys/local', { key: 'x' }),
      400,
      'invalid_request',
    );
    assertError(
      await web('PUT', '/web/api/account/upstream-keys/gemini', { key: '  ' }),
      400,
      'invalid_request',
    );
    assert.equal((await web('DELETE', '/web/api/account/upstream-keys/gemini')).statusCode, 204);
    const without = (await web('GET', '/web/api/account')).json();
    assert.equal(
      without.upstream.providers.find((p: { name: string }) => p.name === 'gemini').own_key,
      false,
    );

    const rotated = await web('POST', '/web/api/account/api-key', { password: PASSWORD });
    assert.equal(rotated.statusCode, 200);
    const newKey = rotated.json().api_key as string;
    assert.match(newKey, /^atl_/);
    const old = await t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(apiKey) });
    assertError(old, 401, 'invalid_api_key');
    const fresh = await t.app.inject({ method: 'GET', url: '/api/v1/user/status', headers: bearer(newKey) });
    assert.equal(fresh.statusCode, 200);
    apiKey = newKey;
  });
});

describe('static site', () => {
  let dir: string;
  let app: FastifyInstance;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-web-'));
    app = Fastify();
    installErrorHandling(app);
    await app.register(staticSite, { distDir: dir, publicBaseUrl: 'https://atelier.example' });
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('before a build, page routes explain how to build; the service paths stay JSON 404s', async () => {
    const page = await app.inject({ method: 'GET', url: '/works' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /npm run build/);
    for (const url of [
      '/api/v1/nope',
      '/v1/x',
      '/files/x',
      '/web/api/x',
      '/api',
      '/static/app.js',
      '/robots.txt',
    ]) {
      assertError(await app.inject({ method: 'GET', url }), 404, 'not_found');
    }
  });

  test('after a build: index.html for page routes with a strict CSP, hashed bundles cached for a year', async () => {
    await mkdir(join(dir, 'static'), { recursive: true });
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>Atelier</title><div id="root"></div>');
    await writeFile(join(dir, 'static', 'index-abc123.js'), 'console.log(1)');
    await writeFile(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    for (const url of ['/', '/works', '/library?kind=upload', '/account', '/sign-in']) {
      const page = await app.inject({ method: 'GET', url });
      assert.equal(page.statusCode, 200, url);
      assert.match(String(page.headers['content-type']), /text\/html/);
      assert.match(page.body, /id="root"/);
      assert.equal(page.headers['cache-control'], 'no-cache');
      const csp = String(page.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'/);
      assert.match(csp, /img-src 'self' data: blob: https:\/\/atelier\.example/);
      assert.match(csp, /frame-ancestors 'none'/);
    }
    const bundle = await app.inject({ method: 'GET', url: '/static/index-abc123.js' });
    assert.equal(bundle.statusCode, 200);
    assert.match(String(bundle.headers['cache-control']), /max-age=31536000, immutable/);
    assert.equal((await app.inject({ method: 'GET', url: '/favicon.svg' })).statusCode, 200);
    assertError(await app.inject({ method: 'GET', url: '/static/other.js' }), 404, 'not_found');
    assertError(await app.inject({ method: 'GET', url: '/static/..%2f..%2fpackage.json' }), 404, 'not_found');
    assertError(await app.inject({ method: 'GET', url: '/api/v1/unknown' }), 404, 'not_found');
  });

  test('unknown paths are 404: the app for a browser, the JSON error for other clients', async () => {
    const browser = await app.inject({
      method: 'GET',
      url: '/no-such-page',
      headers: { accept: 'text/html,*/*' },
    });
    assert.equal(browser.statusCode, 404);
    assert.match(browser.body, /id="root"/);
    assertError(await app.inject({ method: 'GET', url: '/no-such-page' }), 404, 'not_found');
    const api = await app.inject({ method: 'GET', url: '/api/v1/nope', headers: { accept: 'text/html' } });
    assertError(api, 404, 'not_found');
  });
});
