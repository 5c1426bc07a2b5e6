/**
 * What the claim-fairness tests share: a node on the `local` renderer (at a given latency) whose
 * model takes 16 images per request, and one account's backlog of mixed shapes and sizes.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImageSize } from '../../src/base/domain/image-sizes.js';
import type { Account } from '../../src/capabilities/accounts/accounts-repository.js';
import type { Core } from '../../src/core.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { freshTestDataEnv } from '../support/test-database.js';

/** Seven shapes, as the website offers them. */
const ASPECTS = ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3'] as const;
/** Mostly 1K, some 2K, a few 4K (the renders of one 4K take as long as a dozen 1K ones). */
const SIZES: readonly ImageSize[] = ['1K', '1K', '2K', '1K', '1K', '2K', '1K', '1K', '4K', '1K', '1K'];
const PER_REQUEST = 16;

/**
 * The config of a node on the `local` renderer at `latencyMs`. Without `env`, a fresh data dir and
 * database with the catalog written in it; with the `env` of an earlier call, the same store.
 */
export async function backlogConfig(options: {
  latencyMs: number;
  env?: Record<string, string>;
}): Promise<{ config: Config; env: Record<string, string> }> {
  let env = options.env;
  if (!env) {
    const dataEnv = await freshTestDataEnv('claim-');
    const catalogPath = join(dataEnv.ATELIER_DATA_DIR ?? '.', 'catalog.json');
    const model = {
      id: 'base-image-2',
      provider: 'local',
      upstreamModel: 'local-v1',
      modes: ['text'],
      maxCount: PER_REQUEST,
    };
    await writeFile(catalogPath, JSON.stringify({ models: [model] }));
    env = {
      ...dataEnv,
      ATELIER_CATALOG: catalogPath,
      ATELIER_DEMO_ACCOUNT: 'false',
      ATELIER_PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
      // A worker's slots (2,000 by default) far fewer than the backlog, as in the report (6,500
      // behind 2,000): what made a claim in due order starve the others. Fewer slots keep the
      // leases' heartbeats of two nodes light on a shared CI machine.
      ATELIER_WORKER_CONCURRENCY: '200',
      LOG_LEVEL: process.env.CLAIM_LOG ?? 'silent',
    };
  }
  const config = loadConfig({ ...env, ATELIER_LOCAL_LATENCY_MS: String(options.latencyMs) });
  return { config, env };
}

/** Generate requests sent at once while seeding (PostgreSQL commits them side by side). */
const SEEDING_CONCURRENCY = 16;

/** `images` tasks of a new account through the API's generate, 16 per request, in mixed shapes and sizes. */
export async function seedBacklog(core: Core, images: number): Promise<Account> {
  const { account } = await core.accounts.create({
    email: `backlog-${Date.now()}@example.test`,
    tier: 'pro',
  });
  const requests = Array.from({ length: Math.ceil(images / PER_REQUEST) }, (_, request) => request);
  const send = async (request: number) => {
    await core.generations.generate(account, {
      prompt: `backlog ${request}: a lighthouse in a storm, seen from the sea`,
      model: 'base-image-2',
      aspect: ASPECTS[request % ASPECTS.length],
      imageSize: SIZES[request % SIZES.length],
      count: Math.min(PER_REQUEST, images - request * PER_REQUEST),
    });
  };
  const lanes = Array.from({ length: SEEDING_CONCURRENCY }, async (_, lane) => {
    for (let request = lane; request < requests.length; request += SEEDING_CONCURRENCY) await send(request);
  });
  await Promise.all(lanes);
  // Submitted, as the inline submit of an API request leaves them (the renderer's job id, queued
  // upstream, its lease given back), in one write: 5,000 inline submits one after another take a
  // minute on PostgreSQL, and leaving them to the engine makes 3,000 claims of one task each.
  const local = core.providers.get('local');
  const submitted = await local?.submit({ prompt: 'backlog', mode: 'text', references: [] } as never);
  if (submitted?.kind !== 'pending' || !('upstreamId' in submitted)) throw new Error('no local job id');
  await core.resources.db
    .updateTable('tasks')
    .set({ upstream_id: submitted.upstreamId, polls: 1, lease_owner: null, lease_expires_at: null })
    .where('account_id', '=', account.id)
    .execute();
  return account;
}
