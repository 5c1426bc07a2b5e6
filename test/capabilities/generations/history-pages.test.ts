import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Core, createCore } from '../../../src/core.js';
import { type Config, loadConfig } from '../../../src/infra/config/config.js';
import { freshTestDataEnv, removeTestData } from '../../support/test-database.js';

// History pages are kept in memory under the account's history version. Two cores on one store
// play two nodes: whatever one changes, the other's next page must show.
let config: Config;
let reader: Core;
let writer: Core;

before(async () => {
  config = loadConfig({ ...(await freshTestDataEnv('history-pages-')), LOG_LEVEL: 'silent' });
  reader = await createCore(config);
  writer = await createCore(config);
});
after(async () => {
  await writer.close();
  await reader.close();
  await removeTestData(config);
});

test('a kept page is served until anything it shows changes, on any node', async () => {
  const { account } = await writer.accounts.create({ email: 'pages@example.test' });
  const first = await writer.generations.generate(account, { prompt: 'first', imageSize: '1K', count: 2 });
  // On SQLite a node reads the other processes' commit counter once per turn of its event loop: a
  // request that follows another node's answer arrives in a later turn. The reader's next page is
  // asked for in the next turn too.
  const page = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return reader.creations.historyPage(account.id, 1, 20);
  };

  const before = await page();
  assert.equal(before.total, 1);
  assert.equal(await page(), before, 'unchanged: the same page, from memory');

  await writer.generations.generate(account, { prompt: 'second', imageSize: '1K' });
  const created = await page();
  assert.deepEqual(
    created.items.map((item) => item.prompt),
    ['second', 'first'],
  );

  // A task of the first generation completes on the other node: its image joins the item.
  const [taskId] = first.task_ids;
  assert.ok(taskId);
  const owner = 'history-pages-test';
  assert.equal((await writer.tasks.leaseIds(owner, 60_000, [taskId])).length, 1);
  const url = `${config.publicBaseUrl}/files/results/${taskId}.png`;
  const now = Date.now();
  assert.ok(
    await writer.tasks.updateLeased(taskId, owner, {
      status: 'completed',
      progress: 100,
      image_url: url,
      finished_at: now,
    }),
  );
  assert.deepEqual((await page()).items[1]?.images, [url]);

  // Removed from saved works on the other node: history still lists it, marked removed.
  const firstId = created.items[1]?.id;
  assert.ok(firstId);
  await writer.generations.remove(account, firstId);
  const removed = await page();
  assert.equal(removed.items[1]?.removed, true);
  assert.equal(removed.total, 2);
  assert.equal(await page(), removed);
});

test("this node's own changes show at once, even within one turn", async () => {
  const { account } = await reader.accounts.create({ email: 'own-pages@example.test' });
  const page = () => reader.creations.historyPage(account.id, 1, 20);
  await reader.generations.generate(account, { prompt: 'one', imageSize: '1K' });
  const before = await page();
  assert.equal(await page(), before);
  // No turn passes between the change and the next page.
  const [again] = await Promise.all([
    reader.generations.generate(account, { prompt: 'two', imageSize: '1K' }).then(page),
    page(),
  ]);
  assert.deepEqual(
    again.items.map((item) => item.prompt),
    ['two', 'one'],
  );
  assert.deepEqual(
    (await page()).items.map((item) => item.prompt),
    ['two', 'one'],
  );
  const removedId = again.items[0]?.id;
  assert.ok(removedId);
  await reader.generations.remove(account, removedId);
  assert.equal((await page()).items[0]?.removed, true);
});
