import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');

/**
 * What scripts read: `--json` commands print their JSON alone on standard output, whatever the
 * command logs (a first start seeding the catalog and the tier policies into the store logs it, at
 * the default level) — the logs go to standard error. The bin, as scripts run it, on a fresh install.
 */
describe('the CLI: --json output is the JSON alone', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-cli-json-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const atelier = (...args: string[]) =>
    run(process.execPath, ['bin/atelier.mjs', ...args], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ATELIER_DATA_DIR: dir,
        LOG_LEVEL: 'info',
      },
    });

  test('a first start (which seeds the store and logs it), then a command on the install', async () => {
    const created = await atelier('accounts', 'create', '--email', 'scripted@cli.test', '--json');
    assert.equal(created.stdout.trim().split('\n').length, 1, created.stdout);
    assert.match(JSON.parse(created.stdout).api_key, /^atl_/);
    assert.match(created.stderr, /catalog/, 'the seeding is logged, on standard error');
    const operator = await atelier('accounts', 'set-operator', '--email', 'scripted@cli.test', '--json');
    assert.equal(operator.stdout.trim().split('\n').length, 1, operator.stdout);
    assert.equal(JSON.parse(operator.stdout).email, 'scripted@cli.test');
  });
});
