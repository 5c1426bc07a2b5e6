import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { RateLimited } from '../../src/base/domain/errors.js';
import { dialectOf } from '../../src/infra/store/database.js';
import { migrations } from '../../src/infra/store/migrations/index.js';
import type { GenerationsTable } from '../../src/infra/store/schema/generations.js';
import type { Database } from '../../src/infra/store/schema.js';
import { filterConditions } from '../../src/use-cases/generations/search-filters.js';
import { bearer } from '../support/api-helpers.js';
import { compareWithIdle } from '../support/latency.js';
import { removeTestData, testDatabaseEnv } from '../support/test-database.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie } from '../support/website-session.js';

const PASSWORD = 'correct horse battery';
let serial = 0;

/** Saved works written straight into the store (the search reads them as any others). */
async function insertWorks(t: TestApp, accountId: string, prompts: string[]) {
  const rows: GenerationsTable[] = prompts.map((prompt) => ({
    id: `gen_search_${serial++}_${randomBytes(4).toString('hex')}`,
    account_id: accountId,
    source: 'api',
    prompt,
    model: 'base-image-2',
    mode: 'text',
    aspect: '1:1',
    image_size: '1K',
    image_count: 1,
    refs_json: '[]',
    ref_keys_json: '[]',
    rejected: 0,
    created_at: Date.now() - serial,
    deleted_at: null,
  }));
  for (let i = 0; i < rows.length; i += 200)
    await t.core.resources.db
      .insertInto('generations')
      .values(rows.slice(i, i + 200))
      .execute();
}

describe('saved-works search answers from a full-text index (issue 25, item 10)', () => {
  let t: TestApp;
  let cookie: string;
  let accountId: string;

  before(async () => {
    t = await createTestApp({
      startEngine: false,
      env: { ATELIER_SEARCH_CONCURRENCY: '1', ATELIER_SEARCH_QUEUE: '0' },
    });
    const account = await t.createAccount(undefined, { password: PASSWORD });
    accountId = account.id;
    cookie = await signedInCookie(t.app, { email: account.email, password: PASSWORD });
  });
  after(() => t?.close());

  const search = async (q: string) => {
    const answer = await t.app.inject({
      method: 'GET',
      url: `/web/api/works?q=${encodeURIComponent(q)}`,
      headers: { cookie },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    return (answer.json() as { items: Array<{ prompt: string }> }).items.map((item) => item.prompt).sort();
  };

  test('word prefixes, in any order, case-insensitive; the inside of a word is not a match', async () => {
    await insertWorks(t, accountId, [
      'A Red-Brick LIGHTHOUSE at dusk',
      'red apples, green pears',
      'Pearl harbour',
    ]);
    assert.deepEqual(await search('lighthouse'), ['A Red-Brick LIGHTHOUSE at dusk']);
    assert.deepEqual(await search('RED'), ['A Red-Brick LIGHTHOUSE at dusk', 'red apples, green pears']);
    assert.deepEqual(await search('pear'), ['Pearl harbour', 'red apples, green pears']);
    assert.deepEqual(await search('pears red'), ['red apples, green pears']);
    assert.deepEqual(await search('brick light'), ['A Red-Brick LIGHTHOUSE at dusk']);
    assert.deepEqual(await search('house'), []);
    assert.deepEqual(await search('"*:&|!'), [], 'operators of either index are plain punctuation');
  });

  test('searches run in a bounded pool per node: past it, RateLimited (429 with Retry-After)', async () => {
    const first = t.core.creations.savedWorks(accountId, 1, 20, { q: 'red' });
    await assert.rejects(
      t.core.creations.savedWorks(accountId, 1, 20, { q: 'pear' }),
      (error: unknown) => error instanceof RateLimited && error.retryAfterMs === 1000,
    );
    assert.equal((await first).total, 2);
    assert.equal(
      (await t.core.creations.savedWorks(accountId, 1, 20, { q: 'pear' })).total,
      2,
      'then it works',
    );
  });
});

describe('long prompts searched at once leave the other accounts fast (issue 25, item 10, measured)', () => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({ startEngine: false });
  });
  after(() => t?.close());

  test("another account's requests stay within a small factor of idle while one searches 1,500 long prompts", async () => {
    const flooder = await t.createAccount(undefined, { password: PASSWORD });
    const other = await t.createAccount();
    // 1,500 prompts of 8,000 characters (the longest allowed), every one with the searched word.
    const filler = 'castle in the mist with towers and banners over a quiet river '
      .repeat(130)
      .slice(0, 7990);
    await insertWorks(
      t,
      flooder.id,
      Array.from({ length: 1500 }, (_, i) => `${filler} w${i}`),
    );
    const cookie = await signedInCookie(t.app, { email: flooder.email, password: PASSWORD });
    const history = async () => {
      const answer = await t.app.inject({
        method: 'GET',
        url: '/api/v1/history',
        headers: bearer(other.apiKey),
      });
      assert.equal(answer.statusCode, 200);
    };
    // Small pages: what is measured is the search (its count walks all 1,500 matches), not the
    // sending of 8 KB prompts, which any listing of them costs.
    await compareWithIdle({
      label: "other account's history, 8 searches at once",
      request: history,
      samples: 21,
      warmUp: 10,
      factor: 20,
      startLoad: async () => {
        let searching = true;
        let answered: () => void = () => {};
        const firstAnswer = new Promise<void>((resolve) => {
          answered = resolve;
        });
        const flood = Promise.all(
          Array.from({ length: 8 }, async () => {
            while (searching) {
              const answer = await t.app.inject({
                method: 'GET',
                url: '/web/api/works?q=castle%20mist&limit=2',
                headers: { cookie },
              });
              assert.ok(answer.statusCode === 200 || answer.statusCode === 429, answer.body);
              if (answer.statusCode === 200) assert.equal((answer.json() as { total: number }).total, 1500);
              answered();
              await new Promise((resolve) => setImmediate(resolve));
            }
          }),
        );
        // At its limit once a search is answered: all 8 are sent by then (2 run, the rest queue for
        // the pool) and each searcher sends its next at once, so 8 stay in flight while measured.
        // (Waiting for 8 answers instead costs a whole round of 8 long searches, ~10 s on PostgreSQL.)
        await Promise.race([firstAnswer, flood]);
        return async () => {
          searching = false;
          await flood;
        };
      },
    });
  });
});

describe('migration 0018 indexes the prompts saved before it (issue 25, item 10)', () => {
  test('a store migrated to 0017, with works, then to 0018: they are found', async () => {
    const env = await testDatabaseEnv({ empty: true });
    const dir = await mkdtemp(join(tmpdir(), 'atelier-backfill-'));
    const url = env.ATELIER_DATABASE_URL ?? join(dir, 'atelier.db');
    const db = new Kysely<Database>({
      dialect: env.ATELIER_DATABASE_URL
        ? new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) })
        : new SqliteDialect({ database: new SQLite(url) }),
    });
    try {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      assert.equal((await migrator.migrateTo('0017_upload_usage')).error, undefined);
      await sql`insert into accounts (id, email, tier, api_key_hash, api_key_hint, created_at, updated_at)
        values ('acc_1', 'a@example.test', 'standard', 'h', 'k', 0, 0)`.execute(db);
      await sql`insert into generations (id, account_id, source, prompt, model, mode, aspect, image_size,
          image_count, refs_json, ref_keys_json, rejected, created_at)
        values ('gen_1', 'acc_1', 'api', 'An old Orchard at dawn', 'm', 'text', '1:1', '1K', 1, '[]', '[]', 0, 0)`.execute(
        db,
      );
      assert.equal((await migrator.migrateTo('0018_prompt_search')).error, undefined);
      const found = await db
        .selectFrom('generations')
        .select('id')
        .where((eb) => eb.and(filterConditions({ q: 'orch' }, dialectOf(db))))
        .execute();
      assert.deepEqual(found, [{ id: 'gen_1' }]);
    } finally {
      await db.destroy();
      await removeTestData({ dataDir: dir, databaseUrl: url });
    }
  });
});
