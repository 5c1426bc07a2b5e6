import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import type { AdminCatalogWire } from '../../src/base/contract/admin-catalog.js';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/index.js';
import { type Core, createCore } from '../../src/core.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';
import { within } from '../support/within.js';
import { ADMIN } from './admin-support.js';

// The catalog in the store across starts and nodes: the file seeds version 1; a start with the same
// file adds nothing and keeps an edit; a start with a changed file adds it (audited); nodes started at
// once add it once; an edit made on one node is in force on another within the refresh interval.

type Doc = { models: Array<Record<string, unknown>> };
const withName = (name: string): Doc => ({
  models: DEFAULT_CATALOG.models.map((m) => (m.id === 'flash' ? { ...m, displayName: name } : { ...m })),
});

/** The environment a config was loaded from, for a node that differs in one variable. */
const envOf = (config: Config): Record<string, string> => ({
  ATELIER_DATA_DIR: config.dataDir,
  ATELIER_DATABASE_URL: config.databaseUrl,
  ATELIER_CATALOG: config.catalogPath ?? '',
  ATELIER_DEMO_ACCOUNT: 'false',
  LOG_LEVEL: 'silent',
});

describe('the catalog in the store: seeding, which wins, several nodes', () => {
  let config: Config;
  let file: string;
  const open: Core[] = [];
  const start = async () => {
    const core = await createCore(config);
    open.push(core);
    return core;
  };
  const stop = async (core: Core) => {
    open.splice(open.indexOf(core), 1);
    await core.close(0);
  };
  const flashName = (core: Core) => core.catalog.get('flash')?.displayName;

  before(async () => {
    const env = await freshTestDataEnv('atelier-catalog-');
    file = join(env.ATELIER_DATA_DIR ?? '.', 'catalog.json');
    config = loadConfig({
      ...env,
      ATELIER_CATALOG: file,
      ATELIER_CONFIG_REFRESH_MS: '100',
      ATELIER_DEMO_ACCOUNT: 'false',
      LOG_LEVEL: 'silent',
    });
    await writeFile(file, JSON.stringify(withName('Flash from the file')));
  });
  after(async () => {
    for (const core of open.reverse()) await core.close(0);
    await removeTestData(config);
  });

  test('the file seeds version 1; the same file at the next start adds nothing', async () => {
    const first = await start();
    assert.equal(first.catalog.inForce.version, 1);
    assert.equal(first.catalog.inForce.source, 'file');
    assert.equal(flashName(first), 'Flash from the file');
    await stop(first);
    const again = await start();
    assert.equal(again.catalog.inForce.version, 1);
    assert.equal((await again.catalogVersions.history(10)).length, 1);
    await stop(again);
  });

  test('an edit survives a start with the unchanged file; a changed file wins, audited', async () => {
    const core = await start();
    const doc = withName('Flash from the console');
    await core.catalogVersions.edit({
      expectedVersion: 1,
      document: doc,
      source: 'api',
      createdBy: 'op@example.test',
    });
    assert.equal(flashName(core), 'Flash from the console');
    await stop(core);
    const unchanged = await start();
    assert.equal(unchanged.catalog.inForce.version, 2);
    assert.equal(flashName(unchanged), 'Flash from the console');
    await stop(unchanged);
    await writeFile(file, JSON.stringify(withName('Flash edited in the file')));
    const changed = await start();
    assert.equal(changed.catalog.inForce.version, 3);
    assert.equal(changed.catalog.inForce.source, 'file');
    assert.equal(flashName(changed), 'Flash edited in the file');
    const imports = [];
    for await (const event of changed.audit.all({ action: 'catalog.import' })) imports.push(event);
    assert.equal(imports.length, 1, 'the changed file (the first seeding is no change)');
    assert.ok(imports.every((event) => event.source === 'file' && event.actor === `file:${file}`));
    assert.ok(imports.some((event) => JSON.stringify(event.after).includes('Flash edited in the file')));
    await stop(changed);
  });

  test('nodes starting at once with a changed file store it once', async () => {
    await writeFile(file, JSON.stringify(withName('Flash for two nodes')));
    const [a, b] = await Promise.all([start(), start()]);
    assert.equal(a?.catalog.inForce.version, 4);
    assert.equal(b?.catalog.inForce.version, 4);
    assert.equal((await a.catalogVersions.history(10)).length, 4);
    await stop(a);
    await stop(b);
  });

  test('an edit sent to a node a refresh behind is made on the version it names: no lost update', async () => {
    const a = await start();
    const slow = await createCore(loadConfig({ ...envOf(config), ATELIER_CONFIG_REFRESH_MS: '60000' }));
    open.push(slow);
    const appSlow = await buildApp(slow);
    try {
      const { account, apiKey } = await a.accounts.create({ email: 'op-slow@example.test', tier: 'pro' });
      await a.accounts.setOperator(account.id, true);
      const base = a.catalog.inForce;
      const named = withName('Flash renamed on node A');
      await a.catalogVersions.edit({
        expectedVersion: base.version,
        document: named,
        source: 'api',
        createdBy: 'a',
      });
      assert.equal(slow.catalog.inForce.version, base.version, 'the slow node has not read it yet');
      const res = await appSlow.inject({
        method: 'PATCH',
        url: `${ADMIN}/catalog/models/flash`,
        headers: { authorization: `Bearer ${apiKey}` },
        payload: { expected_version: base.version + 1, capacity: { maxInFlight: 7 } },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(flashName(slow), 'Flash renamed on node A');
      assert.deepEqual(slow.catalog.get('flash')?.capacity, { maxInFlight: 7 });
    } finally {
      await appSlow.close();
      await stop(slow);
      await stop(a);
    }
  });

  test('a change made on node A is used by node B within the refresh interval', async () => {
    const a = await start();
    const b = await start();
    const appA = await buildApp(a);
    const appB = await buildApp(b);
    try {
      const { account, apiKey } = await a.accounts.create({ email: 'op-nodes@example.test', tier: 'pro' });
      await a.accounts.setOperator(account.id, true);
      const op = { authorization: `Bearer ${apiKey}` };
      const changed = new Promise<number>((resolve) => b.catalog.onChange((v) => resolve(v.version)));
      const current = (
        await appA.inject({ method: 'GET', url: `${ADMIN}/catalog`, headers: op })
      ).json<AdminCatalogWire>();
      const res = await appA.inject({
        method: 'PATCH',
        url: `${ADMIN}/catalog/models/flash`,
        headers: op,
        payload: {
          expected_version: current.version,
          price: { perImage: { '1K': 25_000, '2K': 50_000, '4K': 75_000 } },
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(await within(10_000, "node B's change event", changed), current.version + 1);
      const quote = await appB.inject({
        method: 'POST',
        url: '/api/v1/quotes',
        headers: op,
        payload: { prompt: 'two nodes', model: 'flash', count: 2, imageSize: '1K' },
      });
      assert.equal(quote.statusCode, 200, quote.body);
      assert.equal(quote.json().expected_cost_micros, 50_000);
    } finally {
      await appA.close();
      await appB.close();
      await stop(a);
      await stop(b);
    }
  });
});
