import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { sessionCookieOf } from '../support/website-session.js';

const ORIGIN = 'http://127.0.0.1:8080'; // the test app's public base URL
const PASSWORD = 'correct horse battery';

// Issue 30: deleted works stay deleted on Create in every tab; a work's own link; deleting uploads.
describe('deleted works, a work by id, deleting an upload', () => {
  let t: TestApp;
  const me = { apiKey: '', cookie: '' };
  const other = { apiKey: '', cookie: '' };

  const signIn = async (who: typeof me) => {
    const account = await t.createAccount(undefined, { password: PASSWORD });
    who.apiKey = account.apiKey;
    const answer = await t.app.inject({
      method: 'POST',
      url: '/web/api/session',
      headers: { origin: ORIGIN },
      payload: { email: account.email, password: PASSWORD },
    });
    who.cookie = sessionCookieOf(answer);
  };
  const web = (method: 'GET' | 'DELETE', url: string, who = me) =>
    t.app.inject({ method, url, headers: { cookie: who.cookie, origin: ORIGIN } });
  const generate = async (who: typeof me, payload: Record<string, unknown>) => {
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(who.apiKey),
      payload: { imageSize: '1K', ...payload },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    const id = (answer.json() as { task_ids: string[] }).task_ids[0] ?? '';
    await pollUntilFinal(t.app, who.apiKey, id);
    const task = (
      await t.app.inject({ method: 'GET', url: `/api/v1/tasks/${id}`, headers: bearer(who.apiKey) })
    ).json() as { generation_id?: string };
    return { taskId: id, generationId: await generationOf(who, id, task.generation_id) };
  };
  const generationOf = async (who: typeof me, taskId: string, known?: string) => {
    if (known) return known;
    const listing = (await web('GET', '/web/api/tasks/pending?since=0', who)).json() as {
      tasks: Array<{ task_id: string; generation_id: string }>;
    };
    return listing.tasks.find((card) => card.task_id === taskId)?.generation_id ?? '';
  };
  const upload = async (who: typeof me, image: Buffer) => {
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(who.apiKey), 'content-type': 'image/png' },
      payload: image,
    });
    assert.equal(answer.statusCode, 200, answer.body);
    return answer.json() as { url: string };
  };
  const libraryOf = async (who: typeof me, kind = '') =>
    (
      (await web('GET', `/web/api/assets?limit=30${kind ? `&kind=${kind}` : ''}`, who)).json() as {
        items: Array<{ id: string; kind: string; url: string; generationId: string | null }>;
      }
    ).items;

  before(async () => {
    t = await createTestApp();
    await signIn(me);
    await signIn(other);
  });
  after(() => t?.close());

  test('a deleted work leaves the pending listing for every tab (with and without since), other works stay', async () => {
    const kept = await generate(me, { prompt: 'a kept harbour' });
    const gone = await generate(me, { prompt: 'a deleted meadow', count: 2 });
    const ids = async (query: string) =>
      (
        (await web('GET', `/web/api/tasks/pending${query}`)).json() as {
          tasks: Array<{ generation_id: string }>;
        }
      ).tasks.map((card) => card.generation_id);
    assert.ok((await ids('')).includes(gone.generationId));
    assert.equal((await web('DELETE', `/web/api/works/${gone.generationId}`)).statusCode, 204);
    for (const query of ['', '?since=0']) {
      const listed = await ids(query);
      assert.ok(
        !listed.includes(gone.generationId),
        `a new tab (${query || 'no since'}) hides the deleted work`,
      );
      assert.ok(listed.includes(kept.generationId));
    }
  });

  test('GET /web/api/works/{id}: the own work with its tasks; deleted, unknown and another account’s are 404', async () => {
    const work = await generate(me, { prompt: 'a linked lighthouse' });
    const answer = await web('GET', `/web/api/works/${work.generationId}`);
    assert.equal(answer.statusCode, 200, answer.body);
    const body = answer.json() as {
      id: string;
      prompt: string;
      tasks: Array<{ task_id: string }>;
      starred: boolean;
    };
    assert.equal(body.id, work.generationId);
    assert.equal(body.prompt, 'a linked lighthouse');
    assert.deepEqual(
      body.tasks.map((task) => task.task_id),
      [work.taskId],
    );
    assert.equal(body.starred, false);
    assertError(await web('GET', `/web/api/works/${work.generationId}`, other), 404, 'not_found');
    assertError(await web('GET', '/web/api/works/gen_nothing'), 404, 'not_found');
    assertError(
      await t.app.inject({ method: 'GET', url: `/web/api/works/${work.generationId}` }),
      401,
      'unauthorized',
    );
    assert.equal((await web('DELETE', `/web/api/works/${work.generationId}`)).statusCode, 204);
    assertError(await web('GET', `/web/api/works/${work.generationId}`), 404, 'not_found');
  });

  test('DELETE /web/api/assets/{id}: an upload leaves the library; a work that used it keeps it and re-runs', async () => {
    const image = await makePng(40, 30, { r: 20, g: 120, b: 220 });
    const { url } = await upload(me, image);
    const edited = await generate(me, { prompt: 'the cat, in oils', mode: 'edit', imageUrls: [url] });
    const uploadId = (await libraryOf(me, 'upload')).find((item) => item.url === url)?.id ?? '';
    assert.ok(uploadId, 'the upload is in the library');
    const result = (await libraryOf(me, 'result')).find((item) => item.generationId === edited.generationId);
    assert.ok(result, 'the edit is in the library');

    assertError(await web('DELETE', `/web/api/assets/${uploadId}`, other), 404, 'not_found');
    assertError(
      await t.app.inject({
        method: 'DELETE',
        url: `/web/api/assets/${uploadId}`,
        headers: { cookie: me.cookie },
      }),
      403,
      'forbidden',
    );
    assertError(await web('DELETE', `/web/api/assets/${result.id}`), 409, 'conflict');
    assert.equal((await web('DELETE', `/web/api/assets/${uploadId}`)).statusCode, 204);
    assert.ok(!(await libraryOf(me)).some((item) => item.id === uploadId), 'gone from the library');
    assertError(await web('DELETE', `/web/api/assets/${uploadId}`), 404, 'not_found');

    // The work keeps its reference (refs and the file at its URL), and a re-run with it still works.
    const work = (await web('GET', `/web/api/works/${edited.generationId}`)).json() as { refs: string[] };
    assert.deepEqual(work.refs, [url]);
    assert.equal((await t.app.inject({ method: 'GET', url: new URL(url).pathname })).statusCode, 200);
    const again = await generate(me, { prompt: 'the cat, in oils', mode: 'edit', imageUrls: [url] });
    const status = (
      await t.app.inject({ method: 'GET', url: `/api/v1/tasks/${again.taskId}`, headers: bearer(me.apiKey) })
    ).json() as { status: string };
    assert.equal(status.status, 'completed');
  });

  test('the library search finds uploads by their file name and results by their prompt', async () => {
    const boundary = '----atelier';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="Sunset Over Harbour.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      await makePng(30, 20, { r: 250, g: 150, b: 20 }),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(me.apiKey), 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: body,
    });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    const found = async (q: string) =>
      (
        (await web('GET', `/web/api/assets?q=${encodeURIComponent(q)}`)).json() as {
          items: Array<{ kind: string; name: string | null; prompt: string | null }>;
        }
      ).items.map((item) => (item.kind === 'upload' ? `upload ${item.name}` : `result ${item.prompt}`));
    assert.deepEqual(await found('harbour'), ['upload Sunset Over Harbour.png', 'result a kept harbour']);
    assert.deepEqual(await found('SUNSET harb'), ['upload Sunset Over Harbour.png']);
    assert.deepEqual(await found('harbour'), await found('Harbour'));
    assert.deepEqual(await found('nothing like it'), []);
    assert.deepEqual(
      await found('harbour'),
      ['upload Sunset Over Harbour.png', 'result a kept harbour'],
      'stable',
    );
    // Another account's upload of the same name is not found.
    assert.deepEqual(
      ((await web('GET', '/web/api/assets?q=sunset', other)).json() as { items: unknown[] }).items,
      [],
    );
  });

  test('DELETE /api/v1/assets/{id} with an API key: the own upload 204, then 404; another account’s 404; a result 409', async () => {
    const { url } = await upload(me, await makePng(24, 24, { r: 240, g: 10, b: 10 }));
    const uploadId = (await libraryOf(me, 'upload')).find((item) => item.url === url)?.id ?? '';
    const resultId = (await libraryOf(me, 'result'))[0]?.id ?? '';
    const remove = (id: string, key: string) =>
      t.app.inject({ method: 'DELETE', url: `/api/v1/assets/${id}`, headers: bearer(key) });
    assertError(await remove(uploadId, other.apiKey), 404, 'not_found');
    assertError(await remove(resultId, me.apiKey), 409, 'conflict');
    assert.equal((await remove(uploadId, me.apiKey)).statusCode, 204);
    assertError(await remove(uploadId, me.apiKey), 404, 'not_found');
    const listed = (
      await t.app.inject({ method: 'GET', url: '/api/v1/assets?kind=upload', headers: bearer(me.apiKey) })
    ).json() as { items: Array<{ id: string }> };
    assert.ok(!listed.items.some((item) => item.id === uploadId));
    // The same bytes uploaded again come back as a new library entry.
    await upload(me, await makePng(24, 24, { r: 240, g: 10, b: 10 }));
    assert.ok((await libraryOf(me, 'upload')).some((item) => item.url === url));
  });
});
