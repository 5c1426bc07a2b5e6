import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { renditionKey } from '../../src/infra/blobs/renditions.js';
import { ZERO_RETENTION_MS } from '../../src/use-cases/lifecycle/index.js';
import { assertError, bearer, pollUntilFinal } from '../support/api-helpers.js';
import { startTestS3, type TestS3 } from '../support/s3-server.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

const DAY_MS = 86_400_000;
const NONE = { 'atelier-retention': 'none' };

/**
 * Zero-retention and retention per API key (issue 47), on every blob store: a zero-retention work's
 * image is served once, then its file and renditions leave storage (410); one never fetched goes an
 * hour after it ended; a key's own retention expires that key's works and no other's. Task records
 * and usage stay. Time moves on the core's injected clock.
 */
function zeroRetentionSuite(
  name: string,
  setup: (clock: { now(): number }) => Promise<{ t: TestApp; stored: (key: string) => Promise<boolean> }>,
) {
  describe(`zero-retention and key retention (${name})`, () => {
    let t: TestApp;
    let stored: (key: string) => Promise<boolean>;
    let shift = 0;
    const clock = { now: () => Date.now() + shift };
    const keyOf = (url: string) => new URL(url).pathname.slice('/files/'.length);
    const get = (url: string, apiKey: string) =>
      t.app.inject({ method: 'GET', url, headers: bearer(apiKey) });

    /** A finished work: its first task's id and result URL. */
    const makeWork = async (apiKey: string, headers: Record<string, string> = {}) => {
      const answer = await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: { ...bearer(apiKey), ...headers },
        payload: { prompt: 'a quiet harbour', imageSize: '1K' },
      });
      assert.equal(answer.statusCode, 200, answer.body);
      const [taskId] = (answer.json() as { task_ids: string[] }).task_ids as [string];
      const { final } = await pollUntilFinal(t.app, apiKey, taskId);
      assert.equal(final.status, 'completed');
      return { taskId, url: final.imageUrl as string };
    };

    /** The account's usage over a range wide enough for any shift of the clock, and its task records. */
    const recordsOf = async (apiKey: string, taskIds: string[]) => {
      const day = (at: number) => new Date(at).toISOString().slice(0, 10);
      const range = `from=${day(Date.now() - 5 * DAY_MS)}&to=${day(Date.now() + 5 * DAY_MS)}`;
      const usage = (await get(`/api/v1/user/usage?${range}`, apiKey)).json() as { totals: unknown };
      const tasks = (await get(`/api/v1/tasks?ids=${taskIds.join(',')}`, apiKey)).json();
      return { totals: usage.totals, tasks };
    };

    before(async () => {
      ({ t, stored } = await setup(clock));
    });
    after(() => t?.close());

    test('Atelier-Retention: none: the image is served once (uncached), then its file and renditions are gone; records and usage stay', async () => {
      const { apiKey } = await t.createAccount();
      const work = await makeWork(apiKey, NONE);
      const key = keyOf(work.url);
      const path = new URL(work.url).pathname;
      const rendition = await t.app.inject({ method: 'GET', url: `${path}?w=160` });
      assert.equal(rendition.statusCode, 200, 'a rendition is served before the fetch');
      assert.equal((await t.app.inject({ method: 'HEAD', url: path })).statusCode, 200, 'HEAD is no fetch');
      const before = await recordsOf(apiKey, [work.taskId]);
      assert.ok(await stored(key), 'stored until fetched');

      const fetched = await t.app.inject({ method: 'GET', url: path });
      assert.equal(fetched.statusCode, 200);
      assert.equal(fetched.headers['cache-control'], 'private, no-store');
      assert.equal(fetched.headers['content-type'], 'image/png');
      assert.ok(fetched.rawPayload.length > 100, 'the image itself');
      await t.core.lifecycle.zeroRetention.settled();

      assert.equal(await stored(key), false, 'no file after the fetch');
      assert.equal(await stored(renditionKey(key, 160, 'original')), false, 'nor its rendition');
      assertError(await t.app.inject({ method: 'GET', url: path }), 410, 'gone');
      const task = (await get(`/api/v1/tasks/${work.taskId}`, apiKey)).json() as {
        status: string;
        retention?: string;
      };
      assert.equal(task.status, 'completed', 'the task record stays');
      assert.equal(task.retention, 'none', 'and says the work stores nothing');
      assert.deepEqual(await recordsOf(apiKey, [work.taskId]), before, 'usage and task records unchanged');
      const history = (await get('/api/v1/history?limit=5', apiKey)).json() as {
        items: Array<{ removed?: boolean }>;
      };
      assert.equal(history.items[0]?.removed, true, 'history marks the work removed');
    });

    test('an image never fetched is kept for an hour after it ended, then removed; a work without the header stays', async () => {
      const { apiKey } = await t.createAccount();
      const unfetched = await makeWork(apiKey, NONE);
      const kept = await makeWork(apiKey);
      await t.core.lifecycle.runOnce();
      assert.ok(await stored(keyOf(unfetched.url)), 'inside the hour: still there');
      shift += ZERO_RETENTION_MS + 60_000;
      await t.core.lifecycle.runOnce();
      assert.equal(await stored(keyOf(unfetched.url)), false, 'an hour after it ended: gone');
      assertError(await t.app.inject({ method: 'GET', url: new URL(unfetched.url).pathname }), 410, 'gone');
      assert.ok(await stored(keyOf(kept.url)), 'an ordinary work stays');
      const record = (await get(`/api/v1/tasks/${kept.taskId}`, apiKey)).json() as { retention?: string };
      assert.equal(record.retention, undefined, 'its record has no retention field');
      const again = await t.app.inject({ method: 'GET', url: new URL(kept.url).pathname });
      assert.notEqual(again.headers['cache-control'], 'private, no-store');
      await t.core.lifecycle.zeroRetention.settled();
      assert.ok(await stored(keyOf(kept.url)), 'fetching an ordinary work removes nothing');
    });

    test('a key that stores nothing: OpenAI b64_json and Gemini inline answers carry the image, then nothing is kept', async () => {
      const account = await t.createAccount();
      const [key] = await t.core.accounts.listKeys(account.id);
      assert.ok(key);
      await t.core.accounts.setKeyRetention(account.id, key.id, { zeroRetention: true });
      const openai = await t.app.inject({
        method: 'POST',
        url: '/v1/images/generations',
        headers: bearer(account.apiKey),
        payload: {
          model: 'base-image-2',
          prompt: 'a paper boat',
          size: '1024x1024',
          response_format: 'b64_json',
        },
      });
      assert.equal(openai.statusCode, 200, openai.body);
      const image = (openai.json() as { data: Array<{ b64_json: string }> }).data[0];
      assert.ok(Buffer.from(image?.b64_json ?? '', 'base64').length > 100, 'the image is answered');
      // The header works on the Gemini route too (here with a key that stores nothing anyway).
      const gemini = await t.app.inject({
        method: 'POST',
        url: '/v1beta/models/base-image-2:generateContent',
        headers: { 'x-goog-api-key': account.apiKey, ...NONE },
        payload: { contents: [{ role: 'user', parts: [{ text: 'a paper plane' }] }] },
      });
      assert.equal(gemini.statusCode, 200, gemini.body);
      await t.core.lifecycle.zeroRetention.settled();

      const history = (await get('/api/v1/history?limit=5', account.apiKey)).json() as {
        items: Array<{ images: string[]; removed?: boolean }>;
      };
      assert.equal(history.items.length, 2);
      for (const item of history.items) {
        assert.equal(item.removed, true, 'each work is marked removed');
        for (const url of item.images) assert.equal(await stored(keyOf(url)), false, 'and keeps no file');
      }
      const listed = (await t.core.accounts.listKeys(account.id))[0];
      assert.equal(listed?.zeroRetention, true);
    });

    test("a key's own results retention expires that key's works and not the account's others", async () => {
      const account = await t.createAccount();
      const short = await t.core.accounts.createKey(account.id, { name: 'short-lived' });
      await t.core.accounts.setKeyRetention(account.id, short.key.id, { resultsRetentionDays: 1 });
      const mine = await makeWork(short.apiKey);
      const other = await makeWork(account.apiKey);
      const before = await recordsOf(account.apiKey, [mine.taskId, other.taskId]);
      await t.core.lifecycle.runOnce();
      assert.ok(await stored(keyOf(mine.url)), 'inside its day');
      shift += 2 * DAY_MS;
      await t.core.lifecycle.runOnce();
      assert.equal(await stored(keyOf(mine.url)), false, "past the key's day: expired");
      assertError(await t.app.inject({ method: 'GET', url: new URL(mine.url).pathname }), 410, 'gone');
      assert.ok(await stored(keyOf(other.url)), "the account's other key keeps its works");
      assert.deepEqual(await recordsOf(account.apiKey, [mine.taskId, other.taskId]), before);
    });

    test('a bad Atelier-Retention value is refused before anything is made', async () => {
      const { apiKey } = await t.createAccount();
      const answer = await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: { ...bearer(apiKey), 'atelier-retention': 'short' },
        payload: { prompt: 'never made' },
      });
      assertError(answer, 400, 'invalid_request');
      const history = (await get('/api/v1/history', apiKey)).json() as { total: number };
      assert.equal(history.total, 0);
    });
  });
}

zeroRetentionSuite('disk', async (clock) => {
  const t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '20' }, overrides: { clock } });
  return { t, stored: async (key) => (await t.core.blobs.stat(key)) !== undefined };
});

let s3: TestS3 | undefined;
zeroRetentionSuite('S3, redirects on', async (clock) => {
  s3 = await startTestS3();
  const env = { ...s3.env('zero'), ATELIER_LOCAL_LATENCY_MS: '20', ATELIER_FILES_REDIRECT: 'true' };
  const t = await createTestApp({ env, overrides: { clock } });
  const server = s3;
  return { t, stored: (key) => server.hasObject(`zero/${key}`) };
});
after(() => s3?.close());
