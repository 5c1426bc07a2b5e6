import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/index.js';
import { createCore } from '../../src/core.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { cli } from '../support/cli.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';

// bin/atelier catalog show | import: the version in force in the store, and a file stored as the
// next version (checked as at a start; refused with the loader's message), audited as a CLI change.

describe('bin/atelier catalog show and import', () => {
  let env: Record<string, string>;
  let config: Config;

  before(async () => {
    env = await freshTestDataEnv('cli-catalog-');
    config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    await (await createCore(config)).close(0);
  });
  after(() => removeTestData(config));

  test('show the version in force; import a file as the next one; a bad file is refused', async () => {
    const shown = await cli(env, 'catalog', 'show', '--json');
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual([JSON.parse(shown.stdout).version, JSON.parse(shown.stdout).source], [1, 'file']);
    const file = join(config.dataDir, 'edited.json');
    const models = DEFAULT_CATALOG.models.map((m) =>
      m.id === 'pro' ? { ...m, displayName: 'Pro, imported' } : m,
    );
    await writeFile(file, JSON.stringify({ models }));
    const imported = await cli(env, 'catalog', 'import', file);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /catalog version 2 stored/);
    const bad = join(config.dataDir, 'bad.json');
    await writeFile(bad, JSON.stringify({ models: [{ ...models[1], id: 'Bad Id' }] }));
    const refused = await cli(env, 'catalog', 'import', bad);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /models\.0\.id: model id: lowercase letters/);
    const core = await createCore(config);
    try {
      assert.equal(core.catalog.inForce.version, 2);
      assert.equal(core.catalog.inForce.source, 'cli');
      assert.equal(core.catalog.get('pro')?.displayName, 'Pro, imported');
      const events = [];
      for await (const event of core.audit.all({ action: 'catalog.update' })) events.push(event);
      assert.equal(events.length, 1);
      assert.equal(events[0]?.source, 'cli');
      assert.match(events[0]?.actor ?? '', /^cli:/);
    } finally {
      await core.close(0);
    }
  });
});
