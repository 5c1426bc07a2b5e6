import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ProviderKeyView } from '../../src/capabilities/accounts/provider-keys.js';
import { createCore } from '../../src/core.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { cli } from '../support/cli.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';

// Issue 39: bin/atelier upstream-keys add|list|update|enable|disable|remove on the test store, the
// key never printed by any command after it was set, the environment's key listed as `env`.

const SECRET = 'sk-cli-pool-key-never-printed-01';
const NEW_SECRET = 'sk-cli-pool-key-replaced-00002';
const ENV_SECRET = 'sk-cli-env-key-of-the-node-003';

describe('bin/atelier upstream-keys', () => {
  let env: Record<string, string>;
  let config: Config;
  const printed: string[] = [];
  const run = async (...argv: string[]) => {
    const result = await cli(env, ...argv);
    printed.push(result.stdout, result.stderr);
    return result;
  };
  const json = async <T>(...argv: string[]): Promise<T> => {
    const result = await run(...argv, '--json');
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as T;
  };

  before(async () => {
    env = { ...(await freshTestDataEnv('cli-upstream-keys-')), ATELIER_OPENAI_API_KEY: ENV_SECRET };
    config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    // A store to work on (commands that read refuse a data dir with no database).
    await (await createCore(config)).close(0);
  });
  after(() => removeTestData(config));

  test('add, list, update, disable, enable, remove; the key is never printed', async () => {
    const added = await json<ProviderKeyView>(
      'upstream-keys',
      'add',
      ...[
        '--provider',
        'gemini',
        '--name',
        'proj-1-a',
        '--key',
        SECRET,
        '--weight',
        '2',
        '--project',
        'proj-1',
      ],
    );
    assert.deepEqual(
      [added.name, added.weight, added.project, added.status],
      ['proj-1-a', 2, 'proj-1', 'in_service'],
    );
    const listed = await json<ProviderKeyView[]>('upstream-keys', 'list');
    assert.deepEqual(
      listed.map((key) => `${key.provider}/${key.name}/${key.source}`),
      ['gemini/proj-1-a/stored', 'openai/env/env'],
    );
    const updated = await json<ProviderKeyView>(
      'upstream-keys',
      'update',
      ...[
        '--provider',
        'gemini',
        '--name',
        'proj-1-a',
        '--key',
        NEW_SECRET,
        '--max-in-flight',
        '3',
        '--project',
        'none',
      ],
    );
    assert.deepEqual([updated.maxInFlight, updated.project], [3, null]);
    assert.equal(
      (await json<ProviderKeyView>('upstream-keys', 'disable', '--provider', 'gemini', '--name', 'proj-1-a'))
        .status,
      'disabled',
    );
    assert.equal(
      (await json<ProviderKeyView>('upstream-keys', 'enable', '--provider', 'gemini', '--name', 'proj-1-a'))
        .status,
      'in_service',
    );
    const text = await run('upstream-keys', 'list');
    assert.match(text.stdout, /gemini\tproj-1-a\tin_service\tweight 2/);
    const env_ = await run('upstream-keys', 'remove', '--provider', 'openai', '--name', 'env');
    assert.equal(env_.code, 1);
    assert.match(env_.stderr, /disable it instead, or unset the variable/);
    assert.equal(
      (await run('upstream-keys', 'remove', '--provider', 'gemini', '--name', 'proj-1-a')).code,
      0,
    );
    assert.deepEqual(await json<ProviderKeyView[]>('upstream-keys', 'list', '--provider', 'gemini'), []);
    for (const out of printed)
      for (const secret of [SECRET, NEW_SECRET, ENV_SECRET])
        assert.ok(!out.includes(secret), 'a key was printed');
  });

  test('usage errors exit 2; an unknown provider or key exits 1', async () => {
    assert.equal((await run('upstream-keys', 'add', '--provider', 'openai', '--name', 'x')).code, 2);
    assert.equal((await run('upstream-keys', 'frobnicate')).code, 2);
    assert.equal(
      (await run('upstream-keys', 'update', '--provider', 'openai', '--name', 'x', '--weight', 'lots')).code,
      2,
    );
    const local = await run('upstream-keys', 'add', '--provider', 'local', '--name', 'x', '--key', 'k');
    assert.equal(local.code, 1);
    assert.match(local.stderr, /provider must be one of/);
    assert.equal((await run('upstream-keys', 'disable', '--provider', 'openai', '--name', 'nope')).code, 1);
  });
});
