import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/infra/store/database.js';
import { cli } from '../support/cli.js';

// The CLI's own store is a SQLite file in its data dir: these run on SQLite whatever the half.
describe('bin/atelier: usage errors, a missing database, an empty list', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'atelier-cli-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('commands that read refuse a data dir with no database, naming the path, and create nothing', async () => {
    const typo = join(root, 'typo');
    for (const args of [
      ['accounts', 'list'],
      ['accounts', 'list', '--json'],
      ['accounts', 'rotate-key', '--email', 'a@example.test'],
      ['accounts', 'set-tier', '--email', 'a@example.test', '--tier', 'pro'],
      ['accounts', 'set-password', '--email', 'a@example.test', '--password', 'correct horse'],
      ['accounts', 'set-upstream-key', '--email', 'a@example.test', '--provider', 'gemini', '--key', 'k'],
    ]) {
      const result = await cli({ ATELIER_DATA_DIR: typo }, ...args);
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(result.stdout, '');
      assert.equal(
        result.stderr,
        `atelier: no database at ${join(typo, 'atelier.db')} (from ATELIER_DATA_DIR=${typo}). Check ` +
          'ATELIER_DATA_DIR / ATELIER_DATABASE_URL; "accounts create" or "serve" starts a new install there.\n',
      );
      assert.equal(existsSync(typo), false, 'no data dir, database or master key was created');
    }
    const byUrl = await cli({ ATELIER_DATABASE_URL: join(root, 'nowhere.db') }, 'accounts', 'list');
    assert.equal(byUrl.code, 1);
    assert.match(byUrl.stderr, /no database at .*nowhere\.db \(from ATELIER_DATABASE_URL=/);
  });

  test('usage errors exit 2 with the usage on stderr, before anything is opened', async () => {
    const dataDir = join(root, 'untouched');
    for (const [args, message] of [
      [[], 'no command given'],
      [['serve-everything'], 'unknown command serve-everything'],
      [['accounts'], 'unknown accounts command (none)'],
      [['accounts', 'toString'], 'unknown accounts command toString'],
      [['accounts', 'create'], '--email is required'],
      [['accounts', 'set-tier', '--email', 'a@example.test'], '--tier is required'],
      [['accounts', 'create', '--email', 'x@example.test', '--tier', 'gold'], 'unknown tier "gold"'],
      [['accounts', 'set-tier', '--email', 'x@example.test', '--tier', 'gold'], 'unknown tier "gold"'],
      [['accounts', 'list', '--everything'], "Unknown option '--everything'"],
    ] as const) {
      const result = await cli({ ATELIER_DATA_DIR: dataDir }, ...args);
      assert.equal(result.code, 2, args.join(' '));
      assert.ok(result.stderr.startsWith('atelier: '), result.stderr);
      assert.ok(result.stderr.includes(message), `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /Usage: atelier <command>/);
      assert.equal(existsSync(dataDir), false, args.join(' '));
    }
    const help = await cli({ ATELIER_DATA_DIR: dataDir }, 'help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: atelier <command>/);
    assert.match(help.stdout, /Exit codes: 0 success, 1 failure .*, 2 usage error/);
  });

  test('accounts list says so when there are none; create then list shows the account', async () => {
    const dataDir = join(root, 'fresh');
    const database = join(dataDir, 'atelier.db');
    await (await openDatabase(database)).destroy();
    const empty = await cli({ ATELIER_DATA_DIR: dataDir }, 'accounts', 'list');
    assert.deepEqual(empty, {
      code: 0,
      stdout: `No accounts in ${database}. Create one: atelier accounts create --email E\n`,
      stderr: '',
    });
    assert.deepEqual(await cli({ ATELIER_DATA_DIR: dataDir }, 'accounts', 'list', '--json'), {
      code: 0,
      stdout: '[]\n',
      stderr: '',
    });
    const created = await cli(
      { ATELIER_DATA_DIR: join(root, 'new') },
      'accounts',
      'create',
      '--email',
      'n@example.test',
    );
    assert.equal(created.code, 0, created.stderr);
    const listed = await cli({ ATELIER_DATA_DIR: join(root, 'new') }, 'accounts', 'list');
    assert.match(listed.stdout, /^n@example\.test\ttrial\t/);
  });

  test('accounts rotate-webhook-secret: a new secret, the old one in its grace; a bad --grace-seconds is a usage error', async () => {
    const env = { ATELIER_DATA_DIR: join(root, 'webhooks') };
    const email = 'hooks@example.test';
    assert.equal((await cli(env, 'accounts', 'create', '--email', email)).code, 0);
    const bad = await cli(
      env,
      'accounts',
      'rotate-webhook-secret',
      '--email',
      email,
      '--grace-seconds',
      'soon',
    );
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--grace-seconds must be a whole number of seconds/);
    const first = await cli(env, 'accounts', 'rotate-webhook-secret', '--email', email, '--json');
    assert.equal(first.code, 0, first.stderr);
    const rotated = JSON.parse(first.stdout);
    assert.deepEqual(Object.keys(rotated).sort(), ['email', 'previous_secret_expires_at', 'secret']);
    assert.match(rotated.secret, /^whsec_/);
    assert.ok(rotated.previous_secret_expires_at > Date.now() + 23 * 3600_000);
    const now = await cli(env, 'accounts', 'rotate-webhook-secret', '--email', email, '--grace-seconds', '0');
    assert.equal(now.code, 0, now.stderr);
    assert.match(
      now.stdout,
      /^New webhook signing secret for hooks@example\.test: whsec_\S+\nThe old secret no longer signs deliveries\.\n$/,
    );
    assert.equal(
      (await cli(env, 'accounts', 'rotate-webhook-secret', '--email', 'nobody@example.test')).code,
      1,
    );
  });
});
