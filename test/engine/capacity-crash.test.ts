import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ProviderRegistry } from '../../src/capabilities/providers/provider-registry.js';
import { createReplicateProvider } from '../../src/capabilities/providers/replicate-provider.js';
import { type Core, createCore } from '../../src/core.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';
import {
  allFinal,
  CATALOG,
  createsPerPrompt,
  MODEL,
  replicateEnv,
  startCountingReplicate,
  startHoldingRelay,
  TOKEN,
} from './cluster-fixtures.js';

// kill -9 of a worker while hundreds of tasks wait for upstream capacity (20 creates per window
// allowed, set in the catalog: the inline creates of the generate requests fill the first one) and
// one of its creates was accepted upstream but never answered: another
// worker finishes every task, none is lost, none is created twice, and the dead worker's slot comes
// back when its lease expires.
const TASKS = 200;
const LEASE_MS = 3000;
const WINDOW_MS = 2000;

function registry(baseUrl: string): ProviderRegistry {
  const replicate = createReplicateProvider({ baseUrl, requestTimeoutMs: 30_000 });
  return {
    get: (name) => (name === 'replicate' ? replicate : undefined),
    names: () => ['replicate'],
    deploymentKeys: { replicate: TOKEN },
  };
}

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test(`kill -9 of a worker with ${TASKS} tasks waiting for capacity: none lost, none submitted twice`, async () => {
  const fake = await startCountingReplicate();
  cleanups.push(() => fake.close());
  const relay = await startHoldingRelay(fake.baseUrl);
  cleanups.push(() => relay.close());
  const catalog = JSON.parse(await readFile(CATALOG, 'utf8')) as { models: Array<Record<string, unknown>> };
  for (const model of catalog.models) model.capacity = { requestsPerMinute: 20 };
  const catalogDir = await mkdtemp(join(tmpdir(), 'capacity-crash-'));
  cleanups.push(() => rm(catalogDir, { recursive: true, force: true }));
  await writeFile(join(catalogDir, 'catalog.json'), JSON.stringify(catalog));
  const env = {
    ...(await freshTestDataEnv('capacity-crash-')),
    ...replicateEnv(fake),
    ATELIER_CATALOG: join(catalogDir, 'catalog.json'),
  };
  const config: Config = loadConfig(env);
  cleanups.push(() => removeTestData(config));
  const cores: Core[] = [];
  cleanups.push(async () => {
    for (const core of cores) await core.close(1000);
  });

  // The api node counts the window over a minute (the default): however long the 200 generate
  // requests take on a loaded machine, its inline creates stop at the first 20 and the other 180
  // tasks wait. The workers count it over WINDOW_MS, and drain them.
  const api = await createCore(config, { providers: registry(fake.baseUrl), leaseMs: LEASE_MS });
  cores.push(api);
  const { account } = await api.accounts.create({ email: 'crash@example.test' });
  const taskIds: string[] = [];
  for (let i = 0; i < TASKS; i++) {
    const { task_ids } = await api.generations.generate(account, {
      prompt: `waiting task ${i}`,
      model: MODEL,
      imageSize: '1K',
    });
    taskIds.push(...task_ids);
  }

  // The doomed worker calls through the relay, which never answers the first create it forwards.
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'test/engine/worker-process.ts'], {
    env: {
      ...process.env,
      ...env,
      ATELIER_REPLICATE_BASE_URL: relay.baseUrl,
      ATELIER_ROLES: 'worker',
      TEST_LEASE_MS: String(LEASE_MS),
      TEST_IDLE_POLL_MS: '200',
      TEST_CAPACITY_WINDOW_MS: String(WINDOW_MS),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(async () => child.kill('SIGKILL'));
  await relay.held;
  const waiting = await api.resources.db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('waiting_for', '=', 'upstream_capacity')
    .executeTakeFirst();
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  assert.equal((await exited)[1], 'SIGKILL');
  assert.ok(Number(waiting?.n) >= 150, `${waiting?.n} tasks were waiting for capacity when the worker died`);

  const survivor = await createCore(config, {
    providers: registry(fake.baseUrl),
    leaseMs: LEASE_MS,
    idlePollMs: 200,
    capacityWindowMs: WINDOW_MS,
  });
  cores.push(survivor);
  survivor.engine.start();
  const rows = await allFinal([survivor], account.id, taskIds);
  assert.deepEqual(
    rows.filter((r) => r.status !== 'completed').map((r) => `${r.id}: ${r.error}`),
    [],
    'every task completed',
  );
  const creates = createsPerPrompt(fake);
  assert.equal(creates.size, TASKS, 'every task was submitted');
  assert.deepEqual(
    [...creates].filter(([, n]) => n > 1),
    [],
    'no task was submitted twice',
  );
  assert.equal(fake.predictions.length, TASKS);
});
