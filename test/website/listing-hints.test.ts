import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_PENDING_CARDS } from '../../src/base/contract/website/create.js';
import { bearer, makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { TEST_ORIGIN as ORIGIN, sessionCookieOf } from '../support/website-session.js';
import { PASSWORD, signIn } from './website-sign-in.js';

/**
 * Issue 30, defects 6 and 7: the creation view's listing says when it left tasks out (`has_more`),
 * and the library names uploads by the file name they were sent with (`name`).
 */
describe('web listings: has_more past the pending window, upload names in the library', () => {
  let t: TestApp;
  let apiKey: string;
  let cookie: string;
  const web = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie, origin: ORIGIN } });

  before(async () => {
    // Tasks stay queued: the listing is about what was asked for.
    t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '600000' } });
    const account = await t.createAccount(undefined, { password: PASSWORD });
    apiKey = account.apiKey;
    cookie = sessionCookieOf(await signIn(t, account.email));
  });
  after(() => t.close());

  const generate = (count: number) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'a window of cards', imageSize: '1K', count },
    });

  test(`the pending listing says has_more once more than ${MAX_PENDING_CARDS} tasks match`, async () => {
    assert.equal((await generate(4)).statusCode, 200);
    const few = (await web('/web/api/tasks/pending')).json();
    assert.equal(few.tasks.length, 4);
    assert.equal(few.has_more, false);
    let made = 4;
    while (made < MAX_PENDING_CARDS) {
      const count = Math.min(4, MAX_PENDING_CARDS - made);
      assert.equal((await generate(count)).statusCode, 200);
      made += count;
    }
    const full = (await web('/web/api/tasks/pending')).json();
    assert.equal(full.tasks.length, MAX_PENDING_CARDS);
    assert.equal(full.has_more, false, 'exactly the window: nothing left out');
    assert.equal((await generate(1)).statusCode, 200);
    const over = (await web('/web/api/tasks/pending')).json();
    assert.equal(over.tasks.length, MAX_PENDING_CARDS);
    assert.equal(over.has_more, true);
  });

  test('an upload keeps the name it was sent with; one without a name says null', async () => {
    const upload = async (png: Buffer, name?: string) => {
      let payload: Buffer = png;
      let type = 'image/png';
      if (name) {
        // The multipart body as fetch would send it: FormData turned into bytes by a Request.
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), name);
        const request = new Request('http://form.test/', { method: 'POST', body: form });
        payload = Buffer.from(await request.arrayBuffer());
        type = request.headers.get('content-type') ?? '';
      }
      const answer = await t.app.inject({
        method: 'POST',
        url: '/api/v1/upload',
        headers: { ...bearer(apiKey), 'content-type': type },
        payload,
      });
      assert.equal(answer.statusCode, 200, answer.body);
      return (answer.json() as { url: string }).url;
    };
    const named = await upload(await makePng(12, 10), 'Harbour at noon.png');
    const unnamed = await upload(await makePng(10, 12));
    const library = (await web('/web/api/assets?kind=upload')).json() as {
      items: Array<{ url: string; name: string | null }>;
    };
    const nameOf = (url: string) => library.items.find((item) => item.url === url)?.name;
    assert.equal(nameOf(named), 'Harbour at noon.png');
    assert.equal(nameOf(unnamed), null);
    const results = (await web('/web/api/assets?kind=result')).json() as { items: Array<{ name: unknown }> };
    for (const item of results.items) assert.equal(item.name, null);
  });
});
