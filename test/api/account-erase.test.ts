import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { renditionKey } from '../../src/infra/blobs/renditions.js';
import { eraseAccount } from '../../src/use-cases/lifecycle/index.js';
import { ADMIN, operatorAndUser, PASSWORD } from '../admin/admin-support.js';
import { keyOf, rowsMentioning, seedAccount, storeTables } from '../support/account-data.js';
import { assertError, bearer } from '../support/api-helpers.js';
import { startTestS3, type TestS3 } from '../support/s3-server.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie, TEST_ORIGIN } from '../support/website-session.js';

/**
 * Erasing an account (issue 47), the same on every blob store: afterwards no row of any table of
 * the store names the account (its id or e-mail; the audit log keeps its id, never its e-mail), no
 * file only it used remains, a file another account uses stays, and usage is kept as anonymous
 * totals. An erase that stopped midway is finished by the lifecycle housekeeping.
 */
function eraseSuite(
  name: string,
  setup: () => Promise<{ t: TestApp; stored: (key: string) => Promise<boolean> }>,
) {
  describe(`erase an account (${name})`, () => {
    let t: TestApp;
    let stored: (key: string) => Promise<boolean>;
    let people: Awaited<ReturnType<typeof operatorAndUser>>;

    const usageTotals = async () =>
      (await t.app.inject({ method: 'GET', url: `${ADMIN}/usage`, headers: people.op })).json() as {
        totals: unknown;
        days: unknown;
        accounts: Array<{ id: string }>;
      };

    before(async () => {
      ({ t, stored } = await setup());
      people = await operatorAndUser(t);
    });
    after(() => t?.close());

    test("the operator's erase leaves no row of the account in any table and no file only it used", async () => {
      const victim = await t.createAccount(undefined, { password: PASSWORD });
      const cookie = await signedInCookie(t.app, { email: victim.email, password: PASSWORD });
      const files = await seedAccount(t, victim, people.user.apiKey);
      const before = await usageTotals();
      assert.ok((await rowsMentioning(t, [victim.id])).length > 10, 'the account has rows to erase');

      const wrong = await t.app.inject({
        method: 'POST',
        url: `${ADMIN}/accounts/${victim.id}/erase`,
        headers: people.op,
        payload: { confirm: people.user.email },
      });
      assertError(wrong, 400, 'invalid_request');
      const erase = await t.app.inject({
        method: 'POST',
        url: `${ADMIN}/accounts/${victim.id}/erase`,
        headers: people.op,
        payload: { confirm: victim.email.toUpperCase() },
      });
      assert.equal(erase.statusCode, 200, erase.body);
      assert.deepEqual(erase.json(), { status: 'erased' });
      await t.core.lifecycle.runOnce();

      // Derived from the store: a table added later without erase handling fails here.
      assert.ok((await storeTables(t)).includes('usage_erased'));
      const left = await rowsMentioning(t, [victim.id, victim.email]);
      assert.deepEqual(
        left.filter((row) => !row.startsWith('audit_events: ')),
        [],
        'no row of the account remains',
      );
      assert.deepEqual(
        await rowsMentioning(t, [victim.email]),
        [],
        'its e-mail is nowhere, the audit log included',
      );
      assert.ok(
        left.some((row) => row.includes('"account.erase"')),
        'the erase is in the audit log, by id',
      );

      for (const url of [files.plain.url, files.edit.url, files.own.url]) {
        assert.equal(await stored(keyOf(url)), false, `${url} left storage`);
        assertError(await t.app.inject({ method: 'GET', url: new URL(url).pathname }), 410, 'gone');
      }
      assert.equal(
        await stored(renditionKey(keyOf(files.plain.url), 320, 'webp')),
        false,
        'its rendition too',
      );
      assert.ok(await stored(keyOf(files.shared.url)), "the other account's upload keeps the shared file");
      const theirs = await t.app.inject({ method: 'GET', url: new URL(files.theirs.url).pathname });
      assert.equal(theirs.statusCode, 200);

      assertError(
        await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(victim.apiKey) }),
        401,
        'invalid_api_key',
      );
      const session = await t.app.inject({ method: 'GET', url: '/web/api/account', headers: { cookie } });
      assert.equal(session.statusCode, 401);
      assertError(
        await t.app.inject({ method: 'GET', url: `${ADMIN}/accounts/${victim.id}`, headers: people.op }),
        404,
        'not_found',
      );

      const after = await usageTotals();
      assert.deepEqual(after.totals, before.totals, "the deployment's usage totals do not change");
      assert.deepEqual(after.days, before.days);
      assert.equal(
        after.accounts.find((a) => a.id === victim.id),
        undefined,
      );

      const again = await t.app.inject({
        method: 'POST',
        url: `${ADMIN}/accounts/${victim.id}/erase`,
        headers: people.op,
        payload: { confirm: victim.email },
      });
      assertError(again, 404, 'not_found');
    });

    test('an erase that stopped midway is finished by the next lifecycle run', async () => {
      const victim = await t.createAccount();
      const files = await seedAccount(t, victim, people.user.apiKey);
      const crash = new Error('the node died');
      const erasing = {
        db: t.core.resources.db,
        clock: t.core.clock,
        changes: t.core.accountChanges,
        cancelUnfinished: async () => {
          throw crash;
        },
      };
      await assert.rejects(eraseAccount(erasing, victim.id), crash);
      assertError(
        await t.app.inject({ method: 'GET', url: '/api/v1/history', headers: bearer(victim.apiKey) }),
        401,
        'invalid_api_key',
      );
      assert.ok(await stored(keyOf(files.plain.url)), 'its files are still there after the crash');

      await t.core.lifecycle.runOnce();
      const left = await rowsMentioning(t, [victim.id, victim.email]);
      assert.deepEqual(left, [], 'the housekeeping finished the erase');
      assert.equal(await stored(keyOf(files.plain.url)), false);
      assert.ok(await stored(keyOf(files.shared.url)));
    });

    test('the account page erases its own account: the e-mail typed again and the password', async () => {
      const victim = await t.createAccount(undefined, { password: PASSWORD });
      const cookie = await signedInCookie(t.app, { email: victim.email, password: PASSWORD });
      const headers = { cookie, origin: TEST_ORIGIN };
      const erase = (payload: Record<string, unknown>) =>
        t.app.inject({ method: 'POST', url: '/web/api/account/erase', headers, payload });
      assertError(await erase({ confirm: 'someone@else.test', password: PASSWORD }), 400, 'invalid_request');
      assertError(await erase({ confirm: victim.email, password: 'not the password' }), 403, 'forbidden');
      const done = await erase({ confirm: victim.email, password: PASSWORD });
      assert.equal(done.statusCode, 200, done.body);
      assert.deepEqual(done.json(), { status: 'erased' });
      assert.match(String(done.headers['set-cookie']), /Max-Age=0|Expires=Thu, 01 Jan 1970/i);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/web/api/account', headers: { cookie } })).statusCode,
        401,
      );
      assert.deepEqual(
        (await rowsMentioning(t, [victim.id])).filter((row) => !row.startsWith('audit_events: ')),
        [],
      );
    });

    test('an operator cannot erase the account they use', async () => {
      const self = await t.app.inject({
        method: 'POST',
        url: `${ADMIN}/accounts/${people.operator.id}/erase`,
        headers: people.op,
        payload: { confirm: people.operator.email },
      });
      assertError(self, 409, 'conflict');
    });
  });
}

eraseSuite('disk', async () => {
  const t = await createTestApp({ env: { ATELIER_LOCAL_LATENCY_MS: '20' } });
  return { t, stored: async (key) => (await t.core.blobs.stat(key)) !== undefined };
});

let s3: TestS3 | undefined;
eraseSuite('S3', async () => {
  s3 = await startTestS3();
  const t = await createTestApp({ env: { ...s3.env('erase'), ATELIER_LOCAL_LATENCY_MS: '20' } });
  const server = s3;
  return { t, stored: (key) => server.hasObject(`erase/${key}`) };
});
after(() => s3?.close());
