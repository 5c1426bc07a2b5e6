import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { renditionKey } from '../../src/infra/blobs/renditions.js';
import { purgeRemovedWorks } from '../../src/use-cases/lifecycle/index.js';
import { operatorAndUser } from '../admin/admin-support.js';
import { assertError, bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { startTestS3, type TestS3 } from '../support/s3-server.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie } from '../support/website-session.js';

const PASSWORD = 'correct horse battery';

/**
 * Deletion that reaches storage (issue 47), the same on every blob store: a deleted work's result
 * and renditions leave storage at the next lifecycle run and answer 410; a file several rows use
 * stays until the last goes (across accounts too: uploads are one file per content); a run that
 * died between the row delete and the file delete is finished by the next one.
 */
function lifecycleSuite(
  name: string,
  setup: () => Promise<{ t: TestApp; stored: (key: string) => Promise<boolean> }>,
) {
  describe(`data lifecycle: deletion (${name})`, () => {
    let t: TestApp;
    let stored: (key: string) => Promise<boolean>;
    let apiKey: string;
    let cookie: string;

    const get = (url: string, key = apiKey) => t.app.inject({ method: 'GET', url, headers: bearer(key) });
    const keyOf = (url: string) => new URL(url).pathname.slice('/files/'.length);

    /** A finished work of the key's account: its id and its first task's result URL. */
    const makeWork = async (payload: Record<string, unknown>, key = apiKey) => {
      const answer = await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: bearer(key),
        payload: { imageSize: '1K', ...payload },
      });
      assert.equal(answer.statusCode, 200, answer.body);
      const [taskId] = (answer.json() as { task_ids: string[] }).task_ids as [string];
      const { final } = await pollUntilFinal(t.app, key, taskId);
      assert.equal(final.status, 'completed');
      const history = (await get('/api/v1/history?limit=1', key)).json() as { items: Array<{ id: string }> };
      return { id: history.items[0]?.id as string, taskId, url: final.imageUrl as string };
    };

    const upload = async (png: Buffer, key = apiKey) => {
      const answer = await t.app.inject({
        method: 'POST',
        url: '/api/v1/upload',
        headers: { ...bearer(key), 'content-type': 'image/png' },
        payload: png,
      });
      assert.equal(answer.statusCode, 200, answer.body);
      const url = (answer.json() as { url: string }).url;
      const assets = (await get('/api/v1/assets?kind=upload', key)).json() as {
        items: Array<{ id: string; url: string }>;
      };
      const asset = assets.items.find((a) => a.url === url);
      assert.ok(asset);
      return { id: asset.id, url };
    };

    const deleteWork = async (id: string, who = cookie) => {
      const answer = await t.app.inject({
        method: 'DELETE',
        url: `/web/api/works/${id}`,
        headers: { cookie: who, origin: 'http://127.0.0.1:8080' },
      });
      assert.equal(answer.statusCode, 204, answer.body);
    };

    const deleteUpload = async (id: string, key = apiKey) => {
      const answer = await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/assets/${id}`,
        headers: bearer(key),
      });
      assert.equal(answer.statusCode, 204, answer.body);
    };

    before(async () => {
      ({ t, stored } = await setup());
      const account = await t.createAccount(undefined, { password: PASSWORD });
      apiKey = account.apiKey;
      cookie = await signedInCookie(t.app, { email: account.email, password: PASSWORD });
    });
    after(() => t?.close());

    test("a deleted work's result and renditions leave storage; its URLs answer 410; the task record stays", async () => {
      const work = await makeWork({ prompt: 'a lighthouse at dusk' });
      const path = new URL(work.url).pathname;
      const rendition = await t.app.inject({ method: 'GET', url: `${path}?w=320&format=webp` });
      assert.equal(rendition.statusCode, 200, rendition.body);
      const key = keyOf(work.url);
      assert.ok(await stored(key));
      assert.ok(await stored(renditionKey(key, 320, 'webp')));

      await deleteWork(work.id);
      await deleteWork(work.id); // idempotent
      await t.core.lifecycle.runOnce();
      await t.core.lifecycle.runOnce(); // a second run finds nothing left to do

      assert.equal(await stored(key), false, 'the original is gone from storage');
      assert.equal(await stored(renditionKey(key, 320, 'webp')), false, 'its rendition too');
      assertError(await t.app.inject({ method: 'GET', url: path }), 410, 'gone');
      assertError(await t.app.inject({ method: 'GET', url: `${path}?w=320&format=webp` }), 410, 'gone');
      assert.equal((await t.app.inject({ method: 'HEAD', url: path })).statusCode, 410);
      const task = await get(`/api/v1/tasks/${work.taskId}`);
      assert.equal(task.statusCode, 200, 'the task record stays');
      assert.equal((task.json() as { status: string }).status, 'completed');
      assertError(
        await t.app.inject({ method: 'GET', url: '/files/results/never-was.png' }),
        404,
        'not_found',
      );
    });

    test('a reference several works and an upload use stays until the last of them goes', async () => {
      const reference = await upload(await makePng(120, 80, { r: 10, g: 200, b: 90 }));
      const key = keyOf(reference.url);
      const edit = { mode: 'edit', imageUrls: [reference.url], aspect: '3:2' };
      const first = await makeWork({ prompt: 'make it snow', ...edit });
      const second = await makeWork({ prompt: 'make it rain', ...edit });

      await deleteUpload(reference.id);
      await t.core.lifecycle.runOnce();
      assert.ok(await stored(key), 'two works still use the upload');
      await deleteWork(first.id);
      await t.core.lifecycle.runOnce();
      assert.ok(await stored(key), 'one work still uses it');
      assert.equal(await stored(keyOf(first.url)), false, "the first work's own result is gone");
      const kept = await t.app.inject({ method: 'GET', url: new URL(reference.url).pathname });
      assert.equal(kept.statusCode, 200);
      await deleteWork(second.id);
      await t.core.lifecycle.runOnce();
      assert.equal(await stored(key), false, 'the last user went: the file goes');
      assertError(await t.app.inject({ method: 'GET', url: new URL(reference.url).pathname }), 410, 'gone');
    });

    test("the same bytes uploaded by two accounts are one file: one deleting it leaves the other's", async () => {
      const other = await t.createAccount();
      const png = await makePng(90, 60, { r: 1, g: 2, b: 3 });
      const mine = await upload(png);
      const theirs = await upload(png, other.apiKey);
      assert.equal(mine.url, theirs.url, 'content-addressed');
      await deleteUpload(mine.id);
      await t.core.lifecycle.runOnce();
      assert.ok(await stored(keyOf(mine.url)), "the other account's upload keeps the file");
      await deleteUpload(theirs.id, other.apiKey);
      await t.core.lifecycle.runOnce();
      assert.equal(await stored(keyOf(mine.url)), false);
    });

    test('a run that died between the row delete and the file delete is finished by the next run', async () => {
      const work = await makeWork({ prompt: 'a crash test dummy' });
      const key = keyOf(work.url);
      await deleteWork(work.id);
      const { db } = t.core.resources;
      // The rows went and the files were listed, then the node died holding its claim on the file.
      assert.equal(await purgeRemovedWorks(db, t.core.clock), 1);
      const claimed = await db
        .updateTable('blob_purges')
        .set({ lease_owner: 'a-node-that-died', lease_until: t.core.clock.now() - 1 })
        .where('blob_key', '=', key)
        .executeTakeFirst();
      assert.equal(Number(claimed.numUpdatedRows), 1, 'the file is on the to-do list');
      assert.ok(await stored(key), 'the file is still there after the crash');
      const asset = await db.selectFrom('assets').select('id').where('blob_key', '=', key).executeTakeFirst();
      assert.equal(asset, undefined, "the work's result row went with the purge");

      await t.core.lifecycle.runOnce();
      assert.equal(await stored(key), false, 'the next run removed the file');
      assertError(await t.app.inject({ method: 'GET', url: new URL(work.url).pathname }), 410, 'gone');
    });

    test("a file claimed by a live node is not worked twice; another account's delete is a 404", async () => {
      const work = await makeWork({ prompt: 'held by another node' });
      const key = keyOf(work.url);
      const other = await t.createAccount(undefined, { password: PASSWORD });
      const otherCookie = await signedInCookie(t.app, { email: other.email, password: PASSWORD });
      const foreign = await t.app.inject({
        method: 'DELETE',
        url: `/web/api/works/${work.id}`,
        headers: { cookie: otherCookie, origin: 'http://127.0.0.1:8080' },
      });
      assertError(foreign, 404, 'not_found');
      await deleteWork(work.id);
      await purgeRemovedWorks(t.core.resources.db, t.core.clock);
      await t.core.resources.db
        .updateTable('blob_purges')
        .set({ lease_owner: 'another-live-node', lease_until: t.core.clock.now() + 60_000 })
        .where('blob_key', '=', key)
        .execute();
      await t.core.lifecycle.runOnce();
      assert.ok(await stored(key), "the other node's claim is respected");
    });

    test('expiry: works and uploads past the retention leave storage with their renditions and answer 410; records and usage stay', async () => {
      const account = await t.createAccount();
      const key = account.apiKey;
      await t.core.lifecycle.accountRetention.set(account.id, { resultsDays: 1, uploadsDays: 1 });
      const old = await makeWork({ prompt: 'yesterday and before' }, key);
      const reference = await upload(await makePng(70, 50, { r: 90, g: 9, b: 9 }), key);
      const path = new URL(old.url).pathname;
      assert.equal((await t.app.inject({ method: 'GET', url: `${path}?w=160` })).statusCode, 200);
      const { db } = t.core.resources;
      const twoDaysAgo = t.core.clock.now() - 2 * 24 * 60 * 60 * 1000;
      await db.updateTable('generations').set({ created_at: twoDaysAgo }).where('id', '=', old.id).execute();
      await db
        .updateTable('assets')
        .set({ created_at: twoDaysAgo })
        .where('account_id', '=', account.id)
        .where('kind', '=', 'upload')
        .execute();
      const fresh = await makeWork({ prompt: 'today' }, key);
      const usageBefore = (await get('/api/v1/user/usage', key)).json() as { totals: unknown };

      await t.core.lifecycle.runOnce();

      assert.equal(await stored(keyOf(old.url)), false, 'the expired result is gone');
      assert.equal(await stored(renditionKey(keyOf(old.url), 160, 'original')), false, 'its rendition too');
      assert.equal(await stored(keyOf(reference.url)), false, 'the expired upload is gone');
      assertError(await t.app.inject({ method: 'GET', url: path }), 410, 'gone');
      assertError(await t.app.inject({ method: 'GET', url: `${path}?w=160` }), 410, 'gone');
      assertError(await t.app.inject({ method: 'GET', url: new URL(reference.url).pathname }), 410, 'gone');
      assert.ok(await stored(keyOf(fresh.url)), 'a work inside the retention stays');
      assert.equal((await get(`/api/v1/tasks/${old.taskId}`, key)).statusCode, 200, 'the task record stays');
      const usageAfter = (await get('/api/v1/user/usage', key)).json() as { totals: unknown };
      assert.deepEqual(usageAfter.totals, usageBefore.totals, 'usage and cost history unchanged');
      const gallery = (await get('/api/v1/history?limit=10', key)).json() as {
        items: Array<{ id: string; removed?: boolean }>;
      };
      assert.equal(gallery.items.find((item) => item.id === old.id)?.removed, true, 'marked removed');
    });
  });
}

describe('data lifecycle: the deployment retention (ATELIER_RETENTION_RESULTS_DAYS)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '20', ATELIER_RETENTION_RESULTS_DAYS: '3' } });
  });
  after(() => t?.close());

  test('a work older than the deployment retention expires; a younger one stays', async () => {
    const { apiKey } = await t.createAccount();
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'four days old', imageSize: '1K' },
    });
    const [taskId] = (answer.json() as { task_ids: string[] }).task_ids as [string];
    const { final } = await pollUntilFinal(t.app, apiKey, taskId);
    const key = new URL(final.imageUrl as string).pathname.slice('/files/'.length);
    const { db } = t.core.resources;
    const now = t.core.clock.now();
    await db
      .updateTable('generations')
      .set({ created_at: now - 2 * 86_400_000 })
      .execute();
    await t.core.lifecycle.runOnce();
    assert.ok(await t.core.blobs.stat(key), 'two days old: inside three');
    await db
      .updateTable('generations')
      .set({ created_at: now - 4 * 86_400_000 })
      .execute();
    await t.core.lifecycle.runOnce();
    assert.equal(await t.core.blobs.stat(key), undefined, 'four days old: expired');
  });

  test("a tier policy's shorter retention wins over the deployment's; other tiers keep the deployment's", async () => {
    await t.core.tierPolicies.setTier('trial', { retention_results_days: 1 }, undefined, {
      label: 'test',
      source: 'api',
    });
    const make = async (tier: string) => {
      const { apiKey } = await t.createAccount(undefined, { tier });
      const answer = await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: bearer(apiKey),
        payload: { prompt: `a ${tier} work`, imageSize: '1K' },
      });
      const [taskId] = (answer.json() as { task_ids: string[] }).task_ids as [string];
      const { final } = await pollUntilFinal(t.app, apiKey, taskId);
      return new URL(final.imageUrl as string).pathname.slice('/files/'.length);
    };
    const trial = await make('trial');
    const standard = await make('standard');
    const { db } = t.core.resources;
    await db
      .updateTable('generations')
      .set({ created_at: t.core.clock.now() - 2 * 86_400_000 })
      .where('purged_at', 'is', null)
      .execute();
    await t.core.lifecycle.runOnce();
    assert.equal(await t.core.blobs.stat(trial), undefined, "two days old: past the trial tier's one day");
    assert.ok(await t.core.blobs.stat(standard), "two days old: inside the deployment's three");
  });

  test('the admin account read says which retention is in force, and where it comes from', async () => {
    const { op, user } = await operatorAndUser(t);
    const read = async () => {
      const answer = await t.app.inject({
        method: 'GET',
        url: `/api/admin/v1/accounts/${user.id}`,
        headers: op,
      });
      assert.equal(answer.statusCode, 200, answer.body);
      return answer.json<{ retention: Record<string, unknown> }>().retention;
    };
    // The trial tier's one day (the test above) beats the deployment's three; no uploads retention.
    assert.deepEqual(await read(), {
      results: { days: 1, source: 'tier', account: null, tier: 1, deployment: 3 },
      uploads: { days: null, source: null, account: null, tier: null, deployment: null },
    });
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/v1/accounts/${user.id}/retention`,
      headers: op,
      payload: { results_days: 1, uploads_days: 30 },
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(await read(), {
      results: { days: 1, source: 'account', account: 1, tier: 1, deployment: 3 },
      uploads: { days: 30, source: 'account', account: 30, tier: null, deployment: null },
    });
  });
});

lifecycleSuite('disk', async () => {
  const t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '20' } });
  return { t, stored: async (key) => (await t.core.blobs.stat(key)) !== undefined };
});

let s3: TestS3 | undefined;
lifecycleSuite('S3', async () => {
  s3 = await startTestS3();
  const t = await createTestApp({ env: { ...s3.env('lifecycle'), ATELIER_LOCAL_LATENCY_MS: '20' } });
  const server = s3;
  return { t, stored: (key) => server.hasObject(`lifecycle/${key}`) };
});
after(() => s3?.close());
