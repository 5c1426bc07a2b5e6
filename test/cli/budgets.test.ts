import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Core, createCore } from '../../src/core.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { cli } from '../support/cli.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';

// Issue 31: bin/atelier accounts set-budget on the test store, read back through a core on it, and
// bin/atelier usage showing spend and the budget.
describe('bin/atelier accounts set-budget and usage', () => {
  let env: Record<string, string>;
  let config: Config;
  let core: Core;
  const email = 'budget@example.test';
  const run = (...argv: string[]) => cli(env, ...argv);

  before(async () => {
    env = await freshTestDataEnv('cli-budgets-');
    config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const created = await run('accounts', 'create', '--email', email, '--json');
    assert.equal(created.code, 0, created.stderr);
    core = await createCore(config);
  });
  after(async () => {
    await core.close(0);
    await removeTestData(config);
  });

  test('dollars with decimals are kept as micro-dollars; none removes one; a key by its hint', async () => {
    const set = await run('accounts', 'set-budget', '--email', email, '--daily', '12.50', '--monthly', '300');
    assert.equal(set.code, 0, set.stderr);
    assert.equal(
      set.stdout.trim(),
      `Budgets of ${email}: daily $12.50, monthly $300.00 (UTC days and months).`,
    );
    const account = await core.accounts.requireByEmail(email);
    assert.deepEqual(await core.budgets.get(account.id), {
      dailyMicros: 12_500_000,
      monthlyMicros: 300_000_000,
    });

    const cleared = await run('accounts', 'set-budget', '--email', email, '--daily', 'none', '--json');
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.deepEqual(JSON.parse(cleared.stdout), {
      email,
      daily_micros: null,
      monthly_micros: 300_000_000,
      currency: 'USD',
    });

    const [key] = await core.accounts.listKeys(account.id);
    assert.ok(key);
    const ofKey = await run('accounts', 'set-budget', '--email', email, '--key', key.hint, '--daily', '0.75');
    assert.equal(ofKey.code, 0, ofKey.stderr);
    assert.match(
      ofKey.stdout,
      new RegExp(`API key "${key.name}" \\(${key.id}\\) of ${email}: daily \\$0\\.75`),
    );
    assert.deepEqual(await core.budgets.getKey(key.id), { dailyMicros: 750_000, monthlyMicros: null });
  });

  test('usage errors: no amount, a bad amount, an unknown key', async () => {
    const none = await run('accounts', 'set-budget', '--email', email);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /needs --daily, --monthly or both/);
    const bad = await run('accounts', 'set-budget', '--email', email, '--daily', '1,000');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--daily must be an amount in US dollars/);
    const unknown = await run(
      'accounts',
      'set-budget',
      '--email',
      email,
      '--key',
      'key_nope',
      '--daily',
      '1',
    );
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no working API key key_nope/);
  });

  test('atelier usage --email shows spend and the budget', async () => {
    const result = await run('usage', '--email', email);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^day\tcompleted\tfailed\tspend\tabsorbed$/m);
    assert.match(result.stdout, /^total\t0\t0\t\$0\.00\t\$0\.00$/m);
    assert.match(
      result.stdout,
      /monthly budget: \$0\.00 of \$300\.00 spent or reserved, \$300\.00 left \(resets /,
    );
  });
});
