import assert from 'node:assert/strict';
import { buffer } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import { createAccountExport } from '../../src/use-cases/downloads/index.js';
import { ADMIN, operatorAndUser, PASSWORD } from '../admin/admin-support.js';
import { seedAccount, upload } from '../support/account-data.js';
import { assertError, makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie } from '../support/website-session.js';
import { readZip } from '../support/zip-reader.js';

interface ExportMetadata {
  created_at: string;
  account: { id: string; email: string; tier: string; created_at: string };
  files: Array<{ file: string; asset_id: string; prompt: string | null; source: string; bytes: number }>;
}

/**
 * An account's export (issue 47): every result of its works and every upload, and no one else's,
 * with metadata.json; from the account page and the operator console, paged through the store.
 */
describe('export an account', () => {
  let t: TestApp;
  let people: Awaited<ReturnType<typeof operatorAndUser>>;
  let owner: { id: string; email: string; apiKey: string };
  let cookie: string;

  /** The account's assets as the store holds them (results and uploads). */
  const assetsOf = async (accountId: string) =>
    (
      await t.core.resources.db
        .selectFrom('assets')
        .select(['id', 'bytes'])
        .where('account_id', '=', accountId)
        .execute()
    )
      .map((row) => row.id)
      .sort();

  const unzip = async (zip: Buffer) => {
    const entries = await readZip(zip);
    const last = entries.at(-1);
    assert.equal(last?.name, 'metadata.json', 'metadata.json is the last entry');
    const metadata = JSON.parse(last.data.toString('utf8')) as ExportMetadata;
    return { entries: entries.slice(0, -1), metadata };
  };

  const checkArchive = async (zip: Buffer) => {
    const { entries, metadata } = await unzip(zip);
    assert.deepEqual(metadata.account.id, owner.id);
    assert.equal(metadata.account.email, owner.email);
    assert.deepEqual(
      metadata.files.map((f) => f.asset_id).sort(),
      await assetsOf(owner.id),
      'every file, no other',
    );
    assert.deepEqual(
      entries.map((e) => e.name),
      metadata.files.map((f) => f.file),
      'each file listed in metadata.json, in order',
    );
    for (const [index, entry] of entries.entries())
      assert.equal(entry.data.length, metadata.files[index]?.bytes, `${entry.name} whole`);
    assert.ok(
      entries.some((e) => e.name.startsWith('works/')) && entries.some((e) => e.name.startsWith('uploads/')),
    );
    return metadata;
  };

  before(async () => {
    t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '20' } });
    people = await operatorAndUser(t);
    owner = await t.createAccount(undefined, { password: PASSWORD });
    cookie = await signedInCookie(t.app, { email: owner.email, password: PASSWORD });
    await seedAccount(t, owner, people.user.apiKey);
    await upload(t, people.user.apiKey, await makePng(30, 30, { r: 1, g: 99, b: 1 }));
  });
  after(() => t?.close());

  test("the account page's export holds every work and upload of the account with metadata, and no one else's", async () => {
    const answer = await t.app.inject({ method: 'GET', url: '/web/api/account/export', headers: { cookie } });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answer.headers['content-type'], 'application/zip');
    assert.match(
      String(answer.headers['content-disposition']),
      /attachment; filename="atelier-export-acc_[^"]+\.zip"/,
    );
    const metadata = await checkArchive(answer.rawPayload);
    assert.ok(metadata.files.some((f) => f.prompt === 'add a red boat' && f.source === 'api'));
    assert.equal(metadata.files.filter((f) => f.source === 'upload').length, 2);
    const audit = (
      await t.app.inject({ method: 'GET', url: `${ADMIN}/audit?action=account.export`, headers: people.op })
    ).json() as { items: Array<{ target_id: string }> };
    assert.ok(
      audit.items.some((event) => event.target_id === owner.id),
      'the export is audited',
    );
  });

  test("the operator console's export is the same archive; a missing account is 404, a non-operator 403", async () => {
    const answer = await t.app.inject({
      method: 'GET',
      url: `${ADMIN}/accounts/${owner.id}/export`,
      headers: people.op,
    });
    assert.equal(answer.statusCode, 200, answer.body);
    await checkArchive(answer.rawPayload);
    assertError(
      await t.app.inject({ method: 'GET', url: `${ADMIN}/accounts/acc_none/export`, headers: people.op }),
      404,
      'not_found',
    );
    assertError(
      await t.app.inject({
        method: 'GET',
        url: `${ADMIN}/accounts/${owner.id}/export`,
        headers: people.plain,
      }),
      403,
      'forbidden',
    );
  });

  test('pages through the store: pages of 2 give the same files as one page', async () => {
    const { blobs } = t.core;
    const { db } = t.core.resources;
    const read = async (pageSize: number) => {
      const zip = await createAccountExport({ blobs, db, pageSize }).open(owner.id, t.core.clock.now());
      const chunks: Buffer[] = [];
      for await (const chunk of zip.stream) chunks.push(chunk as Buffer);
      return unzip(Buffer.concat(chunks));
    };
    const paged = await read(2);
    const whole = await read(1000);
    assert.ok(paged.entries.length >= 4, 'two full pages (then an empty one)');
    assert.deepEqual(
      paged.entries.map((e) => e.name),
      whole.entries.map((e) => e.name),
    );
    assert.deepEqual(paged.metadata.files, whole.metadata.files);
    assert.deepEqual(paged.metadata.files.map((f) => f.asset_id).sort(), await assetsOf(owner.id));
    const empty = await t.createAccount();
    const none = await createAccountExport({ blobs, db, pageSize: 2 }).open(empty.id, t.core.clock.now());
    const entries = await readZip(await buffer(none.stream));
    assert.deepEqual(
      entries.map((e) => e.name),
      ['metadata.json'],
    );
  });
});
