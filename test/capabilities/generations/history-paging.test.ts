import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Clock } from '../../../src/base/runtime/clock.js';
import { randomIds } from '../../../src/base/runtime/ids.js';
import { createAccountsRepository } from '../../../src/capabilities/accounts/accounts-repository.js';
import { loadCatalog } from '../../../src/capabilities/catalog/catalog.js';
import { type Config, loadConfig } from '../../../src/infra/config/config.js';
import { type Db, openDatabase } from '../../../src/infra/store/database.js';
import { createGenerationsRepository } from '../../../src/use-cases/generations/generations-repository.js';
import { freshTestDataEnv, removeTestData } from '../../support/test-database.js';

// History's totals come from per-account counters kept in the same transactions as the rows, and
// pages are read index-first: this checks both against what the rows say, on either store.
let config: Config;
let db: Db;
let now = 1_700_000_000_000;
const clock: Clock = { now: () => now };

before(async () => {
  config = loadConfig({ ...(await freshTestDataEnv('history-paging-')), LOG_LEVEL: 'silent' });
  db = await openDatabase(config.databaseUrl);
});
after(async () => {
  await db.destroy();
  await removeTestData(config);
});

test('totals follow creations, rejections and removals; pages are newest first with ties broken by id', async () => {
  const account = await createAccountsRepository({ db, clock, ids: randomIds }).insert({
    email: 'pages@example.test',
    tier: 'standard',
    passwordHash: null,
    apiKeyHash: `hash-${randomIds.next('acc')}`,
    apiKeyHint: 'hint',
  });
  assert.ok(account);
  const model = loadCatalog(undefined, ['local']).models[0];
  assert.ok(model);
  const generations = createGenerationsRepository({ db, clock, ids: randomIds });
  const create = async () =>
    (
      await generations.create({
        accountId: account.id,
        source: 'api',
        request: {
          prompt: 'p',
          model,
          mode: 'text',
          aspect: '1:1',
          imageSize: '1K',
          count: 1,
          imageUrls: [],
        },
        refKeys: [],
        deadlineMs: 60_000,
        leaseOwner: null,
        leaseMs: 30_000,
      })
    ).generationId;
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    if (i % 3 === 0) now += 1000; // several share a created_at: their order is by id
    ids.push(await create());
  }
  const [rejected, removed] = [ids[1] as string, ids[4] as string];
  await generations.markRejected(rejected);
  await generations.markRejected(rejected); // twice counts once
  assert.equal(await generations.markRemoved(account.id, removed), true);
  assert.equal(await generations.markRemoved(account.id, removed), true);

  const history = await generations.page(account.id, 1, 50);
  const expected = ids
    .map((id, i) => ({ id, at: Math.floor(i / 3) }))
    .filter(({ id }) => id !== rejected)
    .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
    .map(({ id }) => id);
  assert.equal(history.total, 6);
  assert.deepEqual(
    history.rows.map((row) => row.id),
    expected,
  );
  const saved = await generations.page(account.id, 1, 50, { includeRemoved: false });
  assert.equal(saved.total, 5);
  assert.ok(!saved.rows.some((row) => row.id === removed || row.id === rejected));

  // Pages of 2 walk the same order without gaps or repeats; past the end is empty, same total.
  const walked: string[] = [];
  for (let page = 1; page <= 4; page++) {
    const { rows, total } = await generations.page(account.id, page, 2);
    assert.equal(total, 6);
    walked.push(...rows.map((row) => row.id));
  }
  assert.deepEqual(
    walked,
    history.rows.map((row) => row.id),
  );
});
