import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie, TEST_ORIGIN } from '../support/website-session.js';

// Issue 30: stars and named collections of works, per account, in /api/v1 and /web/api.

interface Item {
  id: string;
  starred?: boolean;
  collections?: string[];
}

describe('favourites and collections', () => {
  let t: TestApp;
  let apiKey: string;
  let otherKey: string;
  let accountId: string;
  let cookie: string;
  const works: string[] = [];
  let otherWork: string;

  const call = (method: string, url: string, key = apiKey, payload?: object) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: bearer(key),
      ...(payload === undefined ? {} : { payload }),
    });

  const makeWork = async (key: string, prompt: string) => {
    const answer = await call('POST', '/api/v1/generate', key, { prompt });
    assert.equal(answer.statusCode, 200, answer.body);
    const taskId = (answer.json() as { task_ids: string[] }).task_ids[0] ?? '';
    await pollUntilFinal(t.app, key, taskId);
    const history = (await call('GET', '/api/v1/history?limit=1', key)).json() as { items: Item[] };
    return history.items[0]?.id ?? '';
  };

  const history = async (query = '', key = apiKey) => {
    const answer = await call('GET', `/api/v1/history?limit=50${query}`, key);
    assert.equal(answer.statusCode, 200, answer.body);
    return (answer.json() as { items: Item[]; total: number }).items;
  };

  before(async () => {
    t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '20' } });
    const account = await t.createAccount(undefined, { password: 'correct horse battery' });
    apiKey = account.apiKey;
    accountId = account.id;
    cookie = await signedInCookie(t.app, { email: account.email, password: 'correct horse battery' });
    otherKey = (await t.createAccount()).apiKey;
    for (const prompt of ['a red fox', 'a blue whale', 'a green frog'])
      works.push(await makeWork(apiKey, prompt));
    otherWork = await makeWork(otherKey, 'not yours');
  });
  after(() => t?.close());

  test('star: PUT marks the history item and the starred filter lists it; DELETE takes it off; twice is harmless', async () => {
    const [fox, whale] = works as [string, string];
    assert.equal((await history()).find((item) => item.id === fox)?.starred, false);
    for (let i = 0; i < 2; i++)
      assert.equal((await call('PUT', `/api/v1/generations/${fox}/star`)).statusCode, 204);
    assert.equal((await call('PUT', `/api/v1/generations/${whale}/star`)).statusCode, 204);
    // The plain (kept) history page shows the star at once: the star moved the history version.
    assert.equal((await history()).find((item) => item.id === fox)?.starred, true);
    assert.deepEqual(
      (await history('&starred=true')).map((item) => item.id),
      [whale, fox],
    );
    assert.equal((await history('&starred=false')).length, 3);
    for (let i = 0; i < 2; i++)
      assert.equal((await call('DELETE', `/api/v1/generations/${whale}/star`)).statusCode, 204);
    assert.deepEqual(
      (await history('&starred=true')).map((item) => item.id),
      [fox],
    );
    // The spec's fields are all still there.
    const item = (await history()).find((entry) => entry.id === fox) as unknown as Record<string, unknown>;
    for (const field of [
      'id',
      'prompt',
      'model',
      'mode',
      'aspect',
      'imageSize',
      'imageCount',
      'images',
      'refs',
      'createdAt',
    ])
      assert.ok(field in item, field);
  });

  test("star errors: unknown work, another account's work (the same 404), no key, a bad filter", async () => {
    assertError(await call('PUT', '/api/v1/generations/gen_nope/star'), 404, 'not_found');
    const foreign = await call('PUT', `/api/v1/generations/${otherWork}/star`);
    assertError(foreign, 404, 'not_found');
    assert.equal(
      (foreign.json() as { error: { message: string } }).error.message,
      (await call('PUT', '/api/v1/generations/gen_nope/star')).json().error.message,
    );
    assertError(await call('DELETE', `/api/v1/generations/${otherWork}/star`), 404, 'not_found');
    assertError(
      await t.app.inject({ method: 'PUT', url: `/api/v1/generations/${works[0]}/star` }),
      401,
      'unauthorized',
    );
    assertError(await call('GET', '/api/v1/history?starred=yes'), 400, 'invalid_request');
    // The other account sees no star of this one.
    assert.deepEqual(await history('&starred=true', otherKey), []);
  });

  test('collections: create, list with counts, add and take out works, filter history, rename, delete', async () => {
    const [fox, whale, frog] = works as [string, string, string];
    const created = await call('POST', '/api/v1/collections', apiKey, { name: '  Animals  ' });
    assert.equal(created.statusCode, 201, created.body);
    const animals = created.json() as { id: string; name: string; count: number };
    assert.match(animals.id, /^col_/);
    assert.equal(animals.name, 'Animals');
    assert.equal(animals.count, 0);
    const second = (await call('POST', '/api/v1/collections', apiKey, { name: 'blue things' })).json() as {
      id: string;
    };
    for (const work of [fox, frog])
      assert.equal((await call('PUT', `/api/v1/collections/${animals.id}/items/${work}`)).statusCode, 204);
    // Twice is harmless.
    assert.equal((await call('PUT', `/api/v1/collections/${animals.id}/items/${fox}`)).statusCode, 204);
    assert.equal((await call('PUT', `/api/v1/collections/${second.id}/items/${whale}`)).statusCode, 204);
    assert.equal((await call('PUT', `/api/v1/collections/${second.id}/items/${fox}`)).statusCode, 204);

    const list = (await call('GET', '/api/v1/collections')).json() as {
      items: Array<{ id: string; name: string; count: number }>;
    };
    assert.deepEqual(
      list.items.map((c) => [c.name, c.count]),
      [
        ['Animals', 2],
        ['blue things', 2],
      ],
    );
    assert.deepEqual(
      (await history(`&collection=${animals.id}`)).map((item) => item.id),
      [frog, fox],
    );
    assert.deepEqual((await history()).find((item) => item.id === fox)?.collections, [animals.id, second.id]);

    assert.equal((await call('DELETE', `/api/v1/collections/${animals.id}/items/${fox}`)).statusCode, 204);
    assert.deepEqual(
      (await history(`&collection=${animals.id}`)).map((item) => item.id),
      [frog],
    );
    assert.deepEqual((await history()).find((item) => item.id === fox)?.collections, [second.id]);

    const renamed = await call('PATCH', `/api/v1/collections/${animals.id}`, apiKey, { name: 'Creatures' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.deepEqual(
      { name: renamed.json().name, count: renamed.json().count },
      { name: 'Creatures', count: 1 },
    );
    // Renaming to its own name in another case is allowed.
    assert.equal(
      (await call('PATCH', `/api/v1/collections/${animals.id}`, apiKey, { name: 'CREATURES' })).statusCode,
      200,
    );

    assert.equal((await call('DELETE', `/api/v1/collections/${animals.id}`)).statusCode, 204);
    assert.deepEqual(
      ((await call('GET', '/api/v1/collections')).json() as { items: Array<{ id: string }> }).items.map(
        (c) => c.id,
      ),
      [second.id],
    );
    assert.deepEqual((await history()).find((item) => item.id === frog)?.collections, []);
    // The works stay.
    assert.equal((await history()).length, 3);
  });

  test('collection errors: empty or long name, duplicate name ignoring case, unknown ids', async () => {
    assertError(await call('POST', '/api/v1/collections', apiKey, { name: '   ' }), 400, 'invalid_request');
    assertError(await call('POST', '/api/v1/collections', apiKey, {}), 400, 'invalid_request');
    assertError(
      await call('POST', '/api/v1/collections', apiKey, { name: 'x'.repeat(101) }),
      400,
      'invalid_request',
    );
    const a = (await call('POST', '/api/v1/collections', apiKey, { name: 'Sketches' })).json() as {
      id: string;
    };
    assertError(await call('POST', '/api/v1/collections', apiKey, { name: 'sketches' }), 409, 'conflict');
    const b = (await call('POST', '/api/v1/collections', apiKey, { name: 'Finals' })).json() as {
      id: string;
    };
    assertError(
      await call('PATCH', `/api/v1/collections/${b.id}`, apiKey, { name: 'SKETCHES' }),
      409,
      'conflict',
    );
    assertError(await call('PATCH', '/api/v1/collections/col_nope', apiKey, { name: 'x' }), 404, 'not_found');
    assertError(await call('DELETE', '/api/v1/collections/col_nope'), 404, 'not_found');
    assertError(await call('PUT', `/api/v1/collections/col_nope/items/${works[0]}`), 404, 'not_found');
    assertError(await call('PUT', `/api/v1/collections/${a.id}/items/gen_nope`), 404, 'not_found');
    assertError(await call('GET', '/api/v1/history?collection=col_nope'), 404, 'not_found');
    assertError(await t.app.inject({ method: 'GET', url: '/api/v1/collections' }), 401, 'unauthorized');
  });

  test("security: another account's collections and works read as missing ones", async () => {
    const mine = (await call('POST', '/api/v1/collections', apiKey, { name: 'Private' })).json() as {
      id: string;
    };
    // The other account cannot see, rename, delete, fill or list by this collection.
    const theirs = (await call('GET', '/api/v1/collections', otherKey)).json() as {
      items: Array<{ id: string }>;
    };
    assert.ok(!theirs.items.some((c) => c.id === mine.id));
    assertError(
      await call('PATCH', `/api/v1/collections/${mine.id}`, otherKey, { name: 'Mine now' }),
      404,
      'not_found',
    );
    assertError(await call('DELETE', `/api/v1/collections/${mine.id}`, otherKey), 404, 'not_found');
    assertError(
      await call('PUT', `/api/v1/collections/${mine.id}/items/${otherWork}`, otherKey),
      404,
      'not_found',
    );
    assertError(await call('GET', `/api/v1/history?collection=${mine.id}`, otherKey), 404, 'not_found');
    // Nor may this account put the other's work in its own collection.
    assertError(await call('PUT', `/api/v1/collections/${mine.id}/items/${otherWork}`), 404, 'not_found');
    assert.equal(
      (
        (await call('GET', '/api/v1/collections')).json() as { items: Array<{ id: string; name: string }> }
      ).items.find((c) => c.id === mine.id)?.name,
      'Private',
    );
  });

  test('a read key lists collections, reads marks and downloads, but may not star or change collections (403)', async () => {
    const readKey = (await t.core.accounts.createKey(accountId, { name: 'dashboard', scope: 'read' })).apiKey;
    const [fox] = works as [string];
    assert.equal((await call('GET', '/api/v1/collections', readKey)).statusCode, 200);
    assert.equal((await call('GET', '/api/v1/history?starred=true', readKey)).statusCode, 200);
    assert.equal((await call('GET', `/api/v1/downloads/zip?works=${fox}`, readKey)).statusCode, 200);
    const created = (
      await call('POST', '/api/v1/collections', apiKey, { name: 'Read only test' })
    ).json() as {
      id: string;
    };
    for (const [method, url, payload] of [
      ['PUT', `/api/v1/generations/${fox}/star`],
      ['DELETE', `/api/v1/generations/${fox}/star`],
      ['POST', '/api/v1/collections', { name: 'Nope' }],
      ['PATCH', `/api/v1/collections/${created.id}`, { name: 'Nope' }],
      ['DELETE', `/api/v1/collections/${created.id}`],
      ['PUT', `/api/v1/collections/${created.id}/items/${fox}`],
      ['DELETE', `/api/v1/collections/${created.id}/items/${fox}`],
    ] as Array<[string, string, object?]>)
      assertError(await call(method, url, readKey, payload), 403, 'insufficient_scope');
  });

  test('the website: the same through /web/api with the session (saved works carry marks and filter by them)', async () => {
    const [fox, whale] = works as [string, string];
    const web = (method: string, url: string, payload?: object) =>
      t.app.inject({
        method: method as 'GET',
        url,
        headers: { cookie, origin: TEST_ORIGIN },
        ...(payload === undefined ? {} : { payload }),
      });
    assert.equal((await web('PUT', `/web/api/works/${whale}/star`)).statusCode, 204);
    const created = await web('POST', '/web/api/collections', { name: 'Web picks' });
    assert.equal(created.statusCode, 201, created.body);
    const picks = created.json() as { id: string };
    assert.equal((await web('PUT', `/web/api/collections/${picks.id}/items/${whale}`)).statusCode, 204);
    const starred = (await web('GET', '/web/api/works?starred=true')).json() as { items: Item[] };
    assert.deepEqual(starred.items.map((item) => item.id).sort(), [fox, whale].sort());
    const inPicks = (await web('GET', `/web/api/works?collection=${picks.id}`)).json() as { items: Item[] };
    assert.deepEqual(
      inPicks.items.map((item) => [item.id, item.starred, item.collections?.at(-1)]),
      [[whale, true, picks.id]],
    );
    assert.equal((await web('PATCH', `/web/api/collections/${picks.id}`, { name: 'Best' })).statusCode, 200);
    assert.equal((await web('DELETE', `/web/api/collections/${picks.id}/items/${whale}`)).statusCode, 204);
    assert.equal((await web('DELETE', `/web/api/works/${whale}/star`)).statusCode, 204);
    assert.equal((await web('DELETE', `/web/api/collections/${picks.id}`)).statusCode, 204);
    // Errors: another account's work, a foreign origin, no session.
    assertError(await web('PUT', `/web/api/works/${otherWork}/star`), 404, 'not_found');
    assertError(await web('GET', '/web/api/works?collection=col_nope'), 404, 'not_found');
    assertError(
      await t.app.inject({
        method: 'PUT',
        url: `/web/api/works/${fox}/star`,
        headers: { cookie, origin: 'https://evil.example' },
      }),
      403,
      'forbidden',
    );
    assertError(await t.app.inject({ method: 'GET', url: '/web/api/collections' }), 401, 'unauthorized');
  });
});
