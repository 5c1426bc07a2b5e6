import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/infra/store/database.js';
import { bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { testStore } from '../support/test-database.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
const octal = (mode: number) => mode.toString(8).padStart(4, '0');

/** Every file and directory under `root`, recursively. */
async function walk(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries.map((entry) => join(root, entry));
}

/**
 * The data dir holds password and key hashes, sealed secrets, prompts and every account's images:
 * it is created 0700 and what Atelier writes in it 0600, whatever the process umask.
 */
describe('data dir permissions', () => {
  let t: TestApp;
  let umask: number;
  let parent: string;

  before(async () => {
    // The most permissive umask: the modes must come from Atelier, not from the environment.
    umask = process.umask(0);
    parent = await mkdtemp(join(tmpdir(), 'atelier-perms-'));
    t = await createTestApp({ env: { ATELIER_DATA_DIR: join(parent, 'data') } });
  });
  after(async () => {
    process.umask(umask);
    await t.close();
    await rm(parent, { recursive: true, force: true });
  });

  test('the data dir is 0700; the database (and its -wal, -shm), the master key and blobs are 0600', async () => {
    const { apiKey } = await t.createAccount();
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: await makePng(),
    });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    const generated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'private harbour', imageSize: '1K' },
    });
    assert.equal(generated.statusCode, 200, generated.body);
    const [taskId] = generated.json().task_ids as string[];
    assert.equal((await pollUntilFinal(t.app, apiKey, taskId ?? '')).final.status, 'completed');

    const dataDir = t.core.config.dataDir;
    assert.equal(octal(await modeOf(dataDir)), '0700', 'data dir');
    const expected = ['master.key'];
    if (testStore() === 'sqlite') expected.push('atelier.db', 'atelier.db-wal', 'atelier.db-shm');
    const names = await readdir(dataDir);
    for (const name of expected) assert.ok(names.includes(name), `${name} exists`);

    let blobs = 0;
    for (const path of await walk(dataDir)) {
      const info = await stat(path);
      if (info.isDirectory()) assert.equal(octal(info.mode & 0o777), '0700', path);
      else assert.equal(octal(info.mode & 0o777), '0600', path);
      if (path.includes(`${join(dataDir, 'blobs')}/`) && info.isFile()) blobs++;
    }
    assert.ok(blobs >= 2, `the upload and the result are on disk (${blobs})`);
  });

  test('an existing database (and a leftover -wal) readable by others is narrowed to 0600 when opened', async (context) => {
    if (testStore() !== 'sqlite') return context.skip('a SQLite file');
    const path = join(t.core.config.dataDir, 'older-install.db');
    await writeFile(path, '');
    await writeFile(`${path}-wal`, ''); // left behind by a crash
    await chmod(path, 0o644);
    await chmod(`${path}-wal`, 0o644);
    const db = await openDatabase(path);
    assert.equal(octal(await modeOf(path)), '0600');
    assert.equal(octal(await modeOf(`${path}-wal`)), '0600');
    await db.destroy();
  });
});
