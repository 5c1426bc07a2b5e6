/**
 * What the upstream capacity tests share: a catalog whose `base-image-2` goes to one provider (with
 * optional capacity limits), cores on one test database with that provider pointed at a loopback
 * fake behind its own rate limit, bursts of tasks from several accounts, and a wait for them to end
 * that listens to the task change feeds.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { ImageProvider } from '../../src/capabilities/providers/provider.js';
import type { ProviderRegistry } from '../../src/capabilities/providers/provider-registry.js';
import type { CapacityLimits } from '../../src/capabilities/tasks/capacity/capacity-pool.js';
import type { TaskRow } from '../../src/capabilities/tasks/tasks-repository.js';
import type { Core, CoreOverrides } from '../../src/core.js';
import type { Config } from '../../src/infra/config/config.js';
import { loadConfig } from '../../src/infra/config/config.js';
import type { UpstreamLimit } from '../fakes/providers/upstream-limit.js';
import { freshTestDataEnv } from '../support/test-database.js';
import { allFinal } from './cluster-fixtures.js';

export const UPSTREAM_KEY = 'sk-capacity-test-key-0123456789';

/** Writes a catalog with `base-image-2` on `provider`'s `upstreamModel`, and the config of a node using it. */
export async function capacityConfig(
  provider: string,
  upstreamModel: string,
  capacity: CapacityLimits | undefined,
  env: Record<string, string> = {},
): Promise<Config> {
  const dataEnv = await freshTestDataEnv('capacity-');
  const catalogPath = join(dataEnv.ATELIER_DATA_DIR ?? '.', 'catalog.json');
  const model = {
    id: 'base-image-2',
    provider,
    upstreamModel,
    modes: ['text'],
    ...(capacity ? { capacity } : {}),
  };
  await writeFile(catalogPath, JSON.stringify({ models: [model] }));
  return loadConfig({
    ...dataEnv,
    ATELIER_CATALOG: catalogPath,
    ATELIER_DEMO_ACCOUNT: 'false',
    LOG_LEVEL: process.env.CAP27_LOG ?? 'silent',
    ...env,
  });
}

/** A registry with `provider` under its name, keyed with the deployment key. */
export function registryOf(provider: ImageProvider): ProviderRegistry {
  return {
    get: (name) => (name === provider.name ? provider : undefined),
    names: () => [provider.name],
    deploymentKeys: { [provider.name]: UPSTREAM_KEY },
  };
}

/** The overrides of a core whose only provider is `provider`, with a shortened capacity window. */
export function capacityOverrides(
  provider: ImageProvider,
  options: { windowMs?: number; leaseMs?: number; db?: Core['resources']['db'] } = {},
): CoreOverrides {
  return {
    idlePollMs: 200,
    providers: registryOf(provider),
    ...(options.windowMs ? { capacityWindowMs: options.windowMs } : {}),
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.db ? { db: options.db } : {}),
  };
}

/** `images` tasks for a new account, four per generate request; returns the account and task ids. */
export async function submitBurst(core: Core, label: string, images: number) {
  const { account } = await core.accounts.create({ email: `${label}-${Date.now()}@example.test` });
  const taskIds: string[] = [];
  for (let i = 0; i < images; i += 4) {
    const { task_ids } = await core.generations.generate(account, {
      prompt: `${label} burst ${i}`,
      model: 'base-image-2',
      imageSize: '1K',
      count: Math.min(4, images - i),
    });
    taskIds.push(...task_ids);
  }
  return { account, accountId: account.id, taskIds };
}

/** Waits until every task has ended; returns their rows. */
export function allEnded(cores: Core[], accountId: string, taskIds: string[]): Promise<TaskRow[]> {
  return allFinal(cores, accountId, taskIds);
}

/** The rows that did not complete, as `id: error` lines (empty when every task completed). */
export function notCompleted(rows: TaskRow[]): string[] {
  return rows.filter((r) => r.status !== 'completed').map((r) => `${r.id}: ${r.status} ${r.error ?? ''}`);
}

/**
 * A key nobody configured, past its upstream's concurrent limit: a first burst teaches the pool its
 * limit (kept in the store for every worker; the calls already on their way when the first refusal
 * comes back are refused too), then a second burst completes with few refusals and no attempt spent.
 */
export async function assertLimitLearned(
  t: TestContext,
  core: Core,
  limit: UpstreamLimit,
  bursts: { first: number; second: number; maxInFlight: number },
): Promise<void> {
  core.engine.start();
  const first = await submitBurst(core, 'first', bursts.first);
  const firstRows = await allEnded([core], first.accountId, first.taskIds);
  assert.deepEqual(notCompleted(firstRows), []);
  const learnedFrom = limit.stats.refused;
  const { accountId, taskIds } = await submitBurst(core, 'burst', bursts.second);
  const rows = await allEnded([core], accountId, taskIds);
  const refused = limit.stats.refused - learnedFrom;
  t.diagnostic(`refused ${learnedFrom} in the first burst, then ${refused} for ${rows.length} tasks`);
  assert.deepEqual(notCompleted(rows), []);
  assert.ok(rows.every((row) => row.attempts === 0));
  assert.ok(learnedFrom > 0, 'the first burst met the limit');
  assert.ok(refused < 0.15 * rows.length, `${refused} refused calls once the limit was learned`);
  assert.ok(limit.stats.maxInFlight <= bursts.maxInFlight);
  // Each refusal is counted on its task, for the operator's task log (issue 43).
  const counted = [...firstRows, ...rows].reduce((sum, row) => sum + Number(row.upstream_refusals ?? 0), 0);
  assert.equal(counted, limit.stats.refused);
}
