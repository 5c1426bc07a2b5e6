import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AuditEventWire } from '../../src/base/contract/admin-audit.js';
import { isPostgresUrl } from '../../src/infra/store/database.js';
import { assertError } from '../support/api-helpers.js';
import { cli } from '../support/cli.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { ADMIN, operatorAndUser, requests } from './admin-support.js';

// Issue 43, the audit log: every change an operator makes through the admin API (or the console)
// and every change made with the CLI is recorded, who, when, what, before and after, never a secret.

const ACCOUNT_PASSWORD = 'first password of carol';
const POOL_KEY = 'sk-audit-pool-key-never-logged-01';
const POOL_KEY_2 = 'sk-audit-pool-key-never-logged-02';
const CLI_POOL_KEY = 'sk-audit-cli-pool-key-never-03';
const CLI_PASSWORD = 'a password the cli set';

type Page = { items: AuditEventWire[]; next_cursor: string | null };

describe('operator console API: the audit log', () => {
  let t: TestApp;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;
  let r: ReturnType<typeof requests>;
  /** Every secret the run handled: none may appear in the log. */
  const secrets: string[] = [ACCOUNT_PASSWORD, POOL_KEY, POOL_KEY_2, CLI_POOL_KEY, CLI_PASSWORD];
  let accountId = '';
  let keyId = '';
  const sent = async (
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
    headers: Record<string, string> = who.op,
  ) => {
    const res = await r.send(method, `${ADMIN}${url}`, headers, payload);
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.body}`);
    return res.json<Record<string, unknown>>();
  };
  const page = async (query = '') => {
    const res = await r.get(`${ADMIN}/audit${query}`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Page>();
  };
  /** The CLI on the test app's store (its data dir and master key; its PostgreSQL database). */
  const cliEnv = () => {
    const url = t.core.config.databaseUrl;
    return { ATELIER_DATA_DIR: t.dataDir, ...(isPostgresUrl(url) ? { ATELIER_DATABASE_URL: url } : {}) };
  };

  before(async () => {
    t = await createTestApp();
    who = await operatorAndUser(t);
    r = requests(t);
  });
  after(() => t?.close());

  test('a run of admin API actions and CLI commands is recorded, each with before and after', async () => {
    const created = await sent('POST', '/accounts', {
      email: 'carol@example.test',
      tier: 'trial',
      password: ACCOUNT_PASSWORD,
    });
    secrets.push(created.api_key as string);
    accountId = (created.account as { id: string }).id;
    await sent('PATCH', `/accounts/${accountId}`, { tier: 'pro' });
    // From the console (the website's session): recorded with source website.
    await sent('PATCH', `/accounts/${accountId}`, { disabled: true }, who.web);
    await sent('PATCH', `/accounts/${accountId}`, { disabled: false });
    const reset = await sent('POST', `/accounts/${accountId}/password`, {});
    secrets.push(reset.password as string);
    await sent('PUT', `/accounts/${accountId}/budget`, { daily_micros: 5_000_000 });
    const issued = await sent('POST', `/accounts/${accountId}/keys`, { name: 'ci', scope: 'read' });
    secrets.push(issued.api_key as string);
    keyId = (issued.key as { id: string }).id;
    await sent('PUT', `/accounts/${accountId}/keys/${keyId}/budget`, { monthly_micros: 9_000_000 });
    await sent('DELETE', `/accounts/${accountId}/keys/${keyId}`);
    await sent('POST', '/provider-keys', { provider: 'openai', name: 'audit', key: POOL_KEY, weight: 2 });
    await sent('PATCH', '/provider-keys/openai/audit', { key: POOL_KEY_2, weight: 5 });
    await sent('DELETE', '/provider-keys/openai/audit');
    // The queue's cancel of an account with nothing queued: recorded too, with its count (0).
    await sent('POST', '/queue/cancel', { account_id: accountId });

    const setTier = await cli(
      cliEnv(),
      'accounts',
      'set-tier',
      '--email',
      'carol@example.test',
      '--tier',
      'standard',
    );
    assert.equal(setTier.code, 0, setTier.stderr);
    const rotated = await cli(cliEnv(), 'accounts', 'rotate-key', '--email', 'carol@example.test', '--json');
    assert.equal(rotated.code, 0, rotated.stderr);
    secrets.push(JSON.parse(rotated.stdout).api_key);
    const pooled = await cli(
      cliEnv(),
      'upstream-keys',
      'add',
      '--provider',
      'openai',
      '--name',
      'cli',
      '--key',
      CLI_POOL_KEY,
    );
    assert.equal(pooled.code, 0, pooled.stderr);
    const carol = ['--email', 'carol@example.test'];
    const password = await cli(cliEnv(), 'accounts', 'set-password', ...carol, '--password', CLI_PASSWORD);
    assert.equal(password.code, 0, password.stderr);
    const webhook = await cli(cliEnv(), 'accounts', 'rotate-webhook-secret', ...carol, '--json');
    assert.equal(webhook.code, 0, webhook.stderr);
    secrets.push(JSON.parse(webhook.stdout).secret);

    const res = await r.get(`${ADMIN}/audit?limit=200`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    for (const secret of secrets)
      assert.ok(!res.body.includes(secret), `the log holds no secret (${secret.slice(0, 6)}…)`);
    const { items, next_cursor } = res.json<Page>();
    assert.equal(next_cursor, null);
    assert.deepEqual(
      items.map((event) => `${event.source} ${event.action} ${event.target_type}`),
      [
        'cli webhook-secret.rotate account',
        'cli password.reset account',
        'cli provider-key.add provider-key',
        'cli key.rotate account',
        'cli account.update account',
        'admin-api queue.cancel account',
        'admin-api provider-key.remove provider-key',
        'admin-api provider-key.update provider-key',
        'admin-api provider-key.add provider-key',
        'admin-api key.revoke api-key',
        'admin-api key.budget.set api-key',
        'admin-api key.create api-key',
        'admin-api budget.set account',
        'admin-api password.reset account',
        'admin-api account.update account',
        'website account.update account',
        'admin-api account.update account',
        'admin-api account.create account',
      ],
      'every change, newest first',
    );
    const byAction = (action: string, source = 'admin-api') =>
      items.find((event) => event.action === action && event.source === source) as AuditEventWire;

    const create = byAction('account.create');
    assert.equal(create.actor, who.operator.email);
    assert.equal(create.actor_account_id, who.operator.id);
    assert.equal(create.target_id, accountId);
    assert.equal(create.before, null);
    assert.deepEqual(create.after, {
      email: 'carol@example.test',
      tier: 'trial',
      disabled: false,
      operator: false,
      password_change_required: false,
    });
    assert.match(create.request_id ?? '', /.+/);
    const [enabled, disabled, tier] = items.filter(
      (event) => event.action === 'account.update' && event.source !== 'cli',
    );
    assert.deepEqual([tier?.before?.tier, tier?.after?.tier], ['trial', 'pro']);
    assert.deepEqual([disabled?.before?.disabled, disabled?.after?.disabled], [false, true]);
    assert.deepEqual([enabled?.before?.disabled, enabled?.after?.disabled], [true, false]);
    assert.deepEqual(byAction('password.reset').after, {
      password: '[redacted]',
      generated: true,
      password_change_required: true,
    });
    assert.deepEqual(byAction('budget.set').before, { daily_micros: null, monthly_micros: null });
    assert.deepEqual(byAction('budget.set').after, { daily_micros: 5_000_000, monthly_micros: null });
    assert.equal(byAction('key.create').target_id, keyId);
    assert.equal(byAction('key.create').after?.scope, 'read');
    assert.deepEqual(byAction('key.budget.set').after, { daily_micros: null, monthly_micros: 9_000_000 });
    assert.equal(byAction('key.revoke').before?.revoked_at, null);
    assert.equal(typeof byAction('key.revoke').after?.revoked_at, 'number');
    assert.equal(byAction('provider-key.add').target_id, 'openai/audit');
    assert.equal(byAction('provider-key.add').after?.key, '[redacted]');
    assert.deepEqual(
      [byAction('provider-key.update').before?.weight, byAction('provider-key.update').after?.weight],
      [2, 5],
    );
    assert.equal(byAction('provider-key.remove').after, null);
    assert.equal(byAction('provider-key.remove').before?.name, 'audit');
    assert.equal(byAction('queue.cancel').target_id, accountId);
    assert.deepEqual(byAction('queue.cancel').after, {
      scope: 'account',
      status: 'queued',
      canceled: 0,
      error: 'Canceled by an operator',
    });

    const cliTier = byAction('account.update', 'cli');
    assert.match(cliTier.actor, /^cli:.+/);
    assert.equal(cliTier.actor_account_id, null);
    assert.equal(cliTier.request_id, null);
    assert.deepEqual([cliTier.before?.tier, cliTier.after?.tier], ['pro', 'standard']);
    assert.deepEqual(byAction('password.reset', 'cli').after, {
      password: '[redacted]',
      password_change_required: true,
    });
    assert.equal(byAction('webhook-secret.rotate', 'cli').after?.secret, '[redacted]');
    const rotation = byAction('key.rotate', 'cli');
    assert.notDeepEqual(rotation.before, rotation.after, 'the working key changed');
  });

  test('filters by actor, action, target and time; keyset pages walk the whole log', async () => {
    const all = (await page('?limit=200')).items;
    const walked: AuditEventWire[] = [];
    let cursor: string | null = null;
    do {
      const next: Page = await page(`?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(next.items.length <= 4);
      walked.push(...next.items);
      cursor = next.next_cursor;
    } while (cursor !== null);
    assert.deepEqual(walked, all);

    assert.deepEqual(
      (await page('?action=key.revoke')).items.map((event) => event.target_id),
      [keyId],
    );
    const ofAccount = (await page(`?target_type=account&target_id=${accountId}`)).items;
    assert.ok(ofAccount.length >= 8 && ofAccount.every((event) => event.target_id === accountId));
    const byCli = all.filter((event) => event.source === 'cli');
    assert.deepEqual((await page(`?actor=${encodeURIComponent(byCli[0]?.actor ?? '')}`)).items, byCli);
    const later = (all[0]?.at ?? 0) + 1;
    assert.deepEqual((await page(`?from=${later}`)).items, []);
    assert.deepEqual((await page(`?to=${all.at(-1)?.at ?? 0}`)).items, []);
    assertError(await r.get(`${ADMIN}/audit?action=account.delete`, who.op), 400, 'invalid_request');
    assertError(await r.get(`${ADMIN}/audit?cursor=bm90LWEtY3Vyc29y`, who.op), 400, 'invalid_request');
  });

  test('the export streams the list as NDJSON, filters included', async () => {
    const all = (await page('?limit=200')).items;
    const res = await r.get(`${ADMIN}/audit/export`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
    assert.match(String(res.headers['content-disposition']), /attachment; filename="atelier-audit-/);
    const lines = res.body
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(lines, all);
    const revokes = await r.get(`${ADMIN}/audit/export?action=key.revoke`, who.op);
    assert.deepEqual(
      revokes.body
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
      all.filter((event) => event.action === 'key.revoke'),
    );
  });

  test('a non-operator is refused the log and its export; reading it records nothing', async () => {
    const before = (await page('?limit=200')).items.length;
    assertError(await r.get(`${ADMIN}/audit`, who.plain), 403, 'forbidden');
    assertError(await r.get(`${ADMIN}/audit/export`, who.plain), 403, 'forbidden');
    assert.equal((await page('?limit=200')).items.length, before);
  });

  test('append-only: the audit capability has no statement that changes or removes an event', async () => {
    const dir = join(process.cwd(), 'src/capabilities/audit');
    for (const file of await readdir(dir)) {
      const text = await readFile(join(dir, file), 'utf8');
      assert.doesNotMatch(text, /updateTable|deleteFrom|\bupdate\s+audit_events|\bdelete\s+from/i, file);
    }
  });
});
