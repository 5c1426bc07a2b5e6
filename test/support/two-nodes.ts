import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Core, createCore } from '../../src/core.js';
import { type Config, loadConfig } from '../../src/infra/config/config.js';
import { freshTestDataEnv, removeTestData } from './test-database.js';

export type TestNode = { core: Core; app: FastifyInstance };

/**
 * Two nodes (a core and an app each) on one fresh test store — two processes on one SQLite file, or
 * two nodes on one PostgreSQL database — made before the suite's tests and closed after them.
 * `env` adds to their configuration. Returns the pair, for the tests to take once `before` has run.
 */
export function twoNodesOnOneStore(
  prefix: string,
  publicBaseUrl: string,
  env: Record<string, string> = {},
): () => [TestNode, TestNode] {
  let config: Config;
  const nodes: TestNode[] = [];
  before(async () => {
    config = loadConfig({
      ...(await freshTestDataEnv(prefix)),
      ATELIER_PUBLIC_BASE_URL: publicBaseUrl,
      ATELIER_DEMO_ACCOUNT: 'false',
      LOG_LEVEL: 'silent',
      ...env,
    });
    for (let i = 0; i < 2; i++) {
      const core = await createCore(config);
      nodes.push({ core, app: await buildApp(core) });
    }
  });
  after(async () => {
    for (const { core, app } of nodes.reverse()) {
      await app.close();
      await core.close(0);
    }
    await removeTestData(config);
  });
  return () => nodes as [TestNode, TestNode];
}
