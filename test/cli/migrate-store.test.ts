import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { MIGRATED_TABLES, TRANSIENT_TABLES } from '../../src/edges/cli/migrate-store.js';
import { bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { startTestS3, type TestS3 } from '../support/s3-server.js';
import { testDatabaseEnv, testStore } from '../support/test-database.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

// The target is PostgreSQL + S3, so this runs in the PostgreSQL half of `npm test`.
const onPostgres = testStore() === 'postgres';

describe('bin/atelier migrate-store: a single-node install into PostgreSQL + S3', {
  skip: onPostgres ? false : 'targets PostgreSQL: runs in the PostgreSQL half of npm test',
}, () => {
  let sourceDir: string;
  let source: TestApp;
  let s3: TestS3;
  let targetUrl: string;
  let apiKey: string;
  const taskIds: string[] = [];
  let uploadUrl: string;

  before(async () => {
    sourceDir = await mkdtemp(join(tmpdir(), 'atelier-migrate-'));
    source = await createTestApp({
      env: { ATELIER_DATA_DIR: sourceDir, ATELIER_DATABASE_URL: join(sourceDir, 'atelier.db') },
    });
    ({ apiKey } = await source.createAccount('owner@example.test', { password: 'correct horse' }));
    const generated = await source.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'a lighthouse', count: 2, imageSize: '1K' },
    });
    taskIds.push(...(generated.json().task_ids as string[]));
    for (const id of taskIds)
      assert.equal((await pollUntilFinal(source.app, apiKey, id)).final.status, 'completed');
    const uploaded = await source.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: await makePng(40, 30),
    });
    uploadUrl = uploaded.json().url as string;
    s3 = await startTestS3();
    targetUrl = (await testDatabaseEnv({ empty: true })).ATELIER_DATABASE_URL as string;
  });
  after(async () => {
    await source?.close();
    await s3?.close();
    await rm(sourceDir, { recursive: true, force: true });
  });

  const migrate = () =>
    run(
      process.execPath,
      [
        'bin/atelier.mjs',
        'migrate-store',
        '--to',
        targetUrl,
        '--storage',
        s3.env().ATELIER_STORAGE as string,
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          ...s3.env(),
          ATELIER_DATA_DIR: sourceDir,
          ATELIER_STORAGE: 'file',
          LOG_LEVEL: 'silent',
        },
      },
    );

  test('every table is handed over (only the transient ones are left out)', async () => {
    const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(
      source.core.resources.db,
    );
    const tables = rows
      .map((r) => r.name)
      // The prompt search index (FTS5 and its shadow tables) is the database's own, kept by triggers.
      .filter(
        (name) =>
          !name.startsWith('kysely_') &&
          !(TRANSIENT_TABLES as readonly string[]).includes(name) &&
          !name.startsWith('generations_search'),
      );
    assert.deepEqual([...tables].sort(), [...MIGRATED_TABLES].sort());
  });

  test('copies rows and blobs, and a rerun copies nothing and still reports complete', async () => {
    const first = await migrate();
    assert.match(first.stdout, /accounts: 1 copied, 1\/1 in the target/);
    assert.match(first.stdout, /tasks: 2 copied, 2\/2 in the target/);
    assert.match(first.stdout, /blobs: 3 copied, 3\/3 in the bucket/);
    assert.match(first.stdout, /migrate-store: complete/);
    const again = await migrate();
    for (const table of MIGRATED_TABLES) assert.match(again.stdout, new RegExp(`${table}: 0 copied`));
    assert.match(again.stdout, /blobs: 0 copied, 3\/3 in the bucket/);
    assert.match(again.stdout, /migrate-store: complete/);
  });

  test('a node on the target serves the same account, tasks, history, assets and files', async () => {
    const masterKey = (await readFile(join(sourceDir, 'master.key'), 'utf8')).trim();
    const target = await createTestApp({
      env: { ...s3.env(), ATELIER_DATABASE_URL: targetUrl, ATELIER_MASTER_KEY: masterKey },
    });
    try {
      for (const id of taskIds) {
        const before = await source.app.inject({ url: `/api/v1/tasks/${id}`, headers: bearer(apiKey) });
        const after = await target.app.inject({ url: `/api/v1/tasks/${id}`, headers: bearer(apiKey) });
        assert.equal(after.statusCode, 200);
        assert.deepEqual(after.json(), before.json());
        const file = await target.app.inject({ url: new URL(after.json().imageUrl).pathname });
        assert.equal(file.statusCode, 200);
        assert.equal(file.headers['content-type'], 'image/png');
      }
      const upload = await target.app.inject({ url: new URL(uploadUrl).pathname });
      assert.equal(upload.statusCode, 200);
      const history = await target.app.inject({ url: '/api/v1/history', headers: bearer(apiKey) });
      assert.equal(history.json().total, 1);
      const assets = await target.app.inject({ url: '/api/v1/assets', headers: bearer(apiKey) });
      assert.ok((assets.json().items as unknown[]).length >= 1);
      const signIn = await target.app.inject({
        method: 'POST',
        url: '/web/api/session',
        headers: { origin: 'http://127.0.0.1:8080' },
        payload: { email: 'owner@example.test', password: 'correct horse' },
      });
      assert.equal(signIn.statusCode, 200, signIn.body);
    } finally {
      await target.close();
    }
  });
});
