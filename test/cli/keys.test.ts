import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Core, createCore } from '../../src/core.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { dialectOf } from '../../src/infra/store/database.js';
import { cli } from '../support/cli.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';

interface KeyJson {
  id: string;
  email: string;
  name: string;
  scope: string;
  hint: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  api_key?: string;
}

// Issue 31: bin/atelier keys create|list|revoke, accounts rotate-key and set-operator, on the test
// store (a SQLite file, or a PostgreSQL database), checked against a core on the same store.
describe('bin/atelier keys', () => {
  let env: Record<string, string>;
  let config: Config;
  let core: Core;
  const run = (...argv: string[]) => cli(env, ...argv);
  const json = async <T>(...argv: string[]): Promise<T> => {
    const result = await run(...argv);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as T;
  };
  const works = async (apiKey: string) => core.accounts.authenticateApiKey(apiKey);
  /**
   * Runs a CLI command that changes keys, then waits until this process's core has heard it: on
   * PostgreSQL its NOTIFY (listened for before the command), on SQLite the next turn of the event
   * loop after the command committed (the file's data version is read once per turn).
   */
  const changing = async (...argv: string[]) => {
    const notified = core.accountChanges.heard();
    const result = await run(...argv);
    await (dialectOf(core.resources.db) === 'postgres' ? notified : core.accountChanges.heard());
    return result;
  };

  before(async () => {
    env = await freshTestDataEnv('cli-keys-');
    config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const created = await run('accounts', 'create', '--email', 'keys@example.test', '--json');
    assert.equal(created.code, 0, created.stderr);
    core = await createCore(config);
  });
  after(async () => {
    await core.close(0);
    await removeTestData(config);
  });

  test('accounts create --json still prints exactly email, tier and api_key; its key is the default full key', async () => {
    const created = await json<Record<string, string>>(
      'accounts',
      'create',
      '--email',
      'c@example.test',
      '--json',
    );
    assert.deepEqual(Object.keys(created), ['email', 'tier', 'api_key']);
    const keys = await json<KeyJson[]>('keys', 'list', '--email', 'c@example.test', '--json');
    assert.deepEqual(
      keys.map((k) => [k.name, k.scope, k.hint]),
      [['default', 'full', `${created.api_key?.slice(0, 8)}…`]],
    );
    assert.match(keys[0]?.id ?? '', /^key_/);
  });

  test('create (shown once), list and revoke by hint; a read key has its scope', async () => {
    const before = Date.now();
    const made = await json<KeyJson>(
      'keys',
      'create',
      '--email',
      'keys@example.test',
      '--name',
      'dashboard',
      '--scope',
      'read',
      '--expires-in',
      '30d',
      '--json',
    );
    assert.equal(made.name, 'dashboard');
    assert.equal(made.scope, 'read');
    assert.ok(made.api_key?.startsWith(made.hint.replace('…', '')));
    const thirtyDays = 30 * 86_400_000;
    assert.ok(made.expires_at !== null && made.expires_at >= before + thirtyDays);
    assert.ok(made.expires_at <= Date.now() + thirtyDays);
    assert.equal((await works(made.api_key as string))?.apiKey?.scope, 'read');

    const at = await json<KeyJson>(
      'keys',
      'create',
      '--email',
      'keys@example.test',
      '--name',
      'until new year',
      '--expires-at',
      '2099-01-01T00:00:00Z',
      '--json',
    );
    assert.equal(at.expires_at, Date.parse('2099-01-01T00:00:00Z'));
    assert.equal(at.scope, 'full');

    const text = await run('keys', 'list', '--email', 'keys@example.test');
    assert.equal(text.code, 0);
    const lines = text.stdout.trim().split('\n');
    assert.equal(lines.length, 3);
    assert.match(
      lines[1] ?? '',
      new RegExp(`^${made.id}\tdashboard\tread\t${made.hint}\tcreated .*\texpires `),
    );
    assert.ok(!text.stdout.includes(made.api_key as string), 'the key is never shown again');

    const revoked = await changing('keys', 'revoke', '--email', 'keys@example.test', '--key', made.hint);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /^Revoked key dashboard /);
    assert.equal(await works(made.api_key as string), undefined);
    const left = await json<KeyJson[]>('keys', 'list', '--email', 'keys@example.test', '--json');
    assert.deepEqual(
      left.map((k) => k.name),
      ['default', 'until new year'],
    );
    const all = await json<KeyJson[]>('keys', 'list', '--email', 'keys@example.test', '--all', '--json');
    assert.ok(all.find((k) => k.id === made.id)?.revoked_at);
    const again = await run('keys', 'revoke', '--email', 'keys@example.test', '--key', made.id);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no working key/);
  });

  test('accounts rotate-key replaces the default key only, in the same output as before', async () => {
    const created = await json<{ api_key: string }>(
      'accounts',
      'create',
      '--email',
      'r@example.test',
      '--json',
    );
    const other = await json<KeyJson>(
      'keys',
      'create',
      '--email',
      'r@example.test',
      '--name',
      'ci',
      '--json',
    );
    const rotated = await json<Record<string, string>>(
      'accounts',
      'rotate-key',
      '--email',
      'r@example.test',
      '--json',
    );
    assert.deepEqual(Object.keys(rotated), ['email', 'tier', 'api_key']);
    assert.equal(await works(created.api_key), undefined);
    assert.equal((await works(rotated.api_key as string))?.apiKey?.name, 'default');
    assert.ok(await works(other.api_key as string), 'other keys keep working');
  });

  test('accounts set-operator, and disable / enable', async () => {
    const account = await core.accounts.requireByEmail('keys@example.test');
    assert.deepEqual(await json('accounts', 'set-operator', '--email', 'keys@example.test', '--json'), {
      email: 'keys@example.test',
      operator: true,
    });
    assert.equal(await core.accounts.isOperator(account.id), true);
    const off = await run('accounts', 'set-operator', '--email', 'keys@example.test', '--off');
    assert.equal(off.stdout, 'keys@example.test is no longer an operator.\n');
    assert.equal(await core.accounts.isOperator(account.id), false);
    assert.equal((await run('accounts', 'disable', '--email', 'keys@example.test')).code, 0);
    assert.equal((await core.accounts.findById(account.id))?.disabled, true);
    assert.equal((await run('accounts', 'enable', '--email', 'keys@example.test')).code, 0);
    assert.equal((await core.accounts.findById(account.id))?.disabled, undefined);
  });

  test("keys set-retention sets and clears a key's results retention and zero-retention", async () => {
    const email = 'retention@example.test';
    assert.equal((await run('accounts', 'create', '--email', email, '--json')).code, 0);
    const [listed] = await json<KeyJson[]>('keys', 'list', '--email', email, '--json');
    assert.ok(listed);
    const args = ['keys', 'set-retention', '--email', email, '--key', listed.hint, '--json'];
    const set = await json<KeyJson & { retention_results_days: number | null; zero_retention: boolean }>(
      ...args,
      '--results-days',
      '7',
      '--zero-retention',
      'on',
    );
    assert.equal(set.id, listed.id);
    assert.equal(set.retention_results_days, 7);
    assert.equal(set.zero_retention, true);
    const cleared = await json<{ retention_results_days: number | null; zero_retention: boolean }>(
      ...args,
      '--results-days',
      'none',
    );
    assert.deepEqual(cleared.zero_retention, true, 'an absent option stays');
    assert.equal(cleared.retention_results_days, null);
    for (const bad of [['--results-days', '0'], ['--zero-retention', 'maybe'], []]) {
      const result = await run(...args, ...bad);
      assert.notEqual(result.code, 0, bad.join(' '));
    }
  });

  test('usage errors exit 2 before anything is opened; an unknown account exits 1', async () => {
    for (const args of [
      ['keys'],
      ['keys', 'rename', '--email', 'keys@example.test'],
      ['keys', 'create', '--email', 'keys@example.test'],
      ['keys', 'create', '--email', 'keys@example.test', '--name', 'x', '--scope', 'admin'],
      ['keys', 'create', '--email', 'keys@example.test', '--name', 'x', '--expires-in', '30'],
      ['keys', 'create', '--email', 'keys@example.test', '--name', 'x', '--expires-at', 'tomorrow'],
      [
        'keys',
        'create',
        '--email',
        'keys@example.test',
        '--name',
        'x',
        '--expires-in',
        '1d',
        '--expires-at',
        '2099-01-01',
      ],
      ['keys', 'revoke', '--email', 'keys@example.test'],
      ['keys', 'list'],
      ['keys', 'list', '--email', 'keys@example.test', '--bogus'],
      ['accounts', 'set-operator'],
    ]) {
      const result = await run(...args);
      assert.equal(result.code, 2, args.join(' '));
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^atelier: .*\n\nUsage: atelier <command>/, args.join(' '));
    }
    const past = await run(
      'keys',
      'create',
      '--email',
      'keys@example.test',
      '--name',
      'x',
      '--expires-at',
      '2001-01-01',
    );
    assert.equal(past.code, 1);
    assert.match(past.stderr, /the expiry must be in the future/);
    const unknown = await run('keys', 'list', '--email', 'nobody@example.test');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no account with email nobody@example\.test/);
  });
});
