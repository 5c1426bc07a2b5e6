import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_REMOVED_WORKS } from '../../src/base/contract/website/create.js';
import { bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { sessionCookieOf, signInRequest, TEST_ORIGIN } from '../support/website-session.js';

const PASSWORD = 'correct horse battery';

interface Listing {
  now: number;
  tasks: Array<{ task_id: string; generation_id: string }>;
  removed?: string[];
  removed_more?: boolean;
}

/**
 * The creation view's listing names the works deleted since its previous look (`removed`), so an
 * open Create drops a work deleted in another tab, on Saved works or on another device.
 */
describe('pending listing: works deleted since the previous look', () => {
  let t: TestApp;
  let apiKey: string;
  let cookie: string;
  let kept: string;
  let deleted: string;
  let before0: number;

  const listing = async (query = '') => {
    const answer = await t.app.inject({
      method: 'GET',
      url: `/web/api/tasks/pending${query}`,
      headers: { cookie },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    return answer.json() as Listing;
  };
  /** Generates one image through the API and waits for it; answers its generation id. */
  const generate = async (key: string, prompt: string) => {
    const answer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(key),
      payload: { prompt, imageSize: '1K' },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    const taskId = (answer.json() as { task_ids: string[] }).task_ids[0] ?? '';
    await pollUntilFinal(t.app, key, taskId);
    const task = await t.core.resources.db
      .selectFrom('tasks')
      .select('generation_id')
      .where('id', '=', taskId)
      .executeTakeFirstOrThrow();
    return task.generation_id;
  };

  before(async () => {
    t = await createTestApp();
    const account = await t.createAccount(undefined, { password: PASSWORD });
    apiKey = account.apiKey;
    cookie = sessionCookieOf(await signInRequest(t.app, { email: account.email, password: PASSWORD }));
    before0 = Date.now();
    kept = await generate(apiKey, 'a lantern that stays');
    deleted = await generate(apiKey, 'a lantern deleted in another tab');
  });
  after(() => t?.close());

  test('a first listing (no since) names no deletions; one with since names none before any', async () => {
    const first = await listing();
    assert.equal(first.removed, undefined);
    assert.equal(first.removed_more, undefined);
    assert.deepEqual(new Set(first.tasks.map((task) => task.generation_id)), new Set([kept, deleted]));
    const later = await listing(`?since=${before0}`);
    assert.deepEqual(later.removed, []);
    assert.equal(later.removed_more, false);
  });

  test('a work deleted elsewhere is named by the next look with since, and its tasks are left out', async () => {
    const look = await listing(`?since=${before0}`);
    const refused = await t.app.inject({
      method: 'DELETE',
      url: `/web/api/works/${deleted}`,
      headers: { cookie },
    });
    assert.equal(refused.statusCode, 403, 'a cross-site deletion is refused');
    const removal = await t.app.inject({
      method: 'DELETE',
      url: `/web/api/works/${deleted}`,
      headers: { cookie, origin: TEST_ORIGIN },
    });
    assert.equal(removal.statusCode, 204, removal.body);

    // The page's next look starts 15 s before the previous one's server time.
    const next = await listing(`?since=${look.now - 15_000}`);
    assert.deepEqual(next.removed, [deleted]);
    assert.deepEqual(
      next.tasks.map((task) => task.generation_id),
      [kept],
    );
    const reload = await listing();
    assert.deepEqual(
      reload.tasks.map((task) => task.generation_id),
      [kept],
      'a reload agrees',
    );
    assert.equal(reload.removed, undefined);
    // A look after the deletion no longer names it.
    const afterwards = await listing(`?since=${next.now + 1}`);
    assert.deepEqual(afterwards.removed, []);
  });

  test("another account's deletions are never named", async () => {
    const other = await t.createAccount();
    const theirs = await generate(other.apiKey, 'a lantern of someone else');
    await t.core.resources.db
      .updateTable('generations')
      .set({ deleted_at: Date.now() })
      .where('id', '=', theirs)
      .execute();
    const look = await listing(`?since=${before0}`);
    assert.deepEqual(look.removed, [deleted]);
  });

  test(`past ${MAX_REMOVED_WORKS} deletions the listing says removed_more, latest first`, async () => {
    const row = await t.core.resources.db
      .selectFrom('generations')
      .selectAll()
      .where('id', '=', deleted)
      .executeTakeFirstOrThrow();
    const base = Number(row.deleted_at);
    const copies = Array.from({ length: MAX_REMOVED_WORKS }, (_, i) => ({
      ...row,
      id: `gen_removed_copy_${String(i).padStart(4, '0')}`,
      deleted_at: base + 1 + i,
    }));
    await t.core.resources.db.insertInto('generations').values(copies).execute();
    const look = await listing(`?since=${before0}`);
    assert.equal(look.removed?.length, MAX_REMOVED_WORKS);
    assert.equal(look.removed_more, true);
    assert.equal(look.removed?.[0], copies.at(-1)?.id, 'the latest deletion first');
    assert.ok(!look.removed?.includes(deleted), 'the oldest one is past the cap');
  });
});
