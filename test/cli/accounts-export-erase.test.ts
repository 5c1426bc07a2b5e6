import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { keyOf, rowsMentioning, seedAccount } from '../support/account-data.js';
import { cli } from '../support/cli.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { readZip } from '../support/zip-reader.js';

// Issue 47: bin/atelier accounts export and accounts erase on the store a running app uses.
describe('bin/atelier accounts export and erase', () => {
  let t: TestApp;
  let env: Record<string, string>;
  let owner: { id: string; email: string; apiKey: string };
  let files: Awaited<ReturnType<typeof seedAccount>>;

  before(async () => {
    t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '20' } });
    env = { ATELIER_DATA_DIR: t.dataDir, ATELIER_DATABASE_URL: t.core.config.databaseUrl };
    const other = await t.createAccount();
    owner = await t.createAccount();
    files = await seedAccount(t, owner, other.apiKey);
  });
  after(() => t?.close());

  test('export writes the whole archive to --out: every file of the account and metadata.json', async () => {
    const out = join(t.dataDir, 'export.zip');
    const run = await cli(env, 'accounts', 'export', '--email', owner.email, '--out', out);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), `Exported the works and uploads of ${owner.email} to ${out}.`);
    const entries = await readZip(await readFile(out));
    const metadata = JSON.parse(entries.at(-1)?.data.toString('utf8') ?? '{}') as {
      account: { id: string };
      files: Array<{ url: string }>;
    };
    assert.equal(metadata.account.id, owner.id);
    const urls = metadata.files.map((f) => f.url);
    for (const url of [files.plain.url, files.edit.url, files.own.url, files.shared.url])
      assert.ok(urls.includes(url), url);
    assert.equal(entries.length, metadata.files.length + 1);
    await assert.rejects(stat(`${out}.partial`), 'no partial file is left');
    const missing = await cli(env, 'accounts', 'export', '--email', owner.email);
    assert.equal(missing.code, 2, 'without --out: a usage error');
  });

  test('erase asks for --yes, then leaves no row of the account; the next lifecycle run removes its files', async () => {
    const refused = await cli(env, 'accounts', 'erase', '--email', owner.email);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--yes/);
    assert.ok((await rowsMentioning(t, [owner.id])).length > 0, 'nothing was erased without --yes');

    const run = await cli(env, 'accounts', 'erase', '--email', owner.email, '--yes', '--json');
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { id: owner.id, status: 'erased' });
    await t.core.lifecycle.runOnce();
    assert.deepEqual(
      (await rowsMentioning(t, [owner.id, owner.email])).filter((row) => !row.startsWith('audit_events: ')),
      [],
    );
    assert.equal(await t.core.blobs.stat(keyOf(files.plain.url)), undefined);
    assert.ok(await t.core.blobs.stat(keyOf(files.shared.url)), "the other account's upload stays");
    const again = await cli(env, 'accounts', 'erase', '--email', owner.email, '--yes');
    assert.notEqual(again.code, 0, 'an erased account is no more');
  });
});
