import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Core, type CoreOverrides, createCore } from '../../src/core.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { removeTestData, testDatabaseEnv } from './test-database.js';

/** A free loopback port (the OS picks it; we release it just before the server takes it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface TestApp {
  app: FastifyInstance;
  core: Core;
  baseUrl: string;
  dataDir: string;
  /** Creates an account and returns its API key. */
  createAccount(
    email?: string,
    options?: { tier?: string; password?: string },
  ): Promise<{ email: string; apiKey: string; id: string }>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * The real app on a fresh temp data dir and a fresh database (a SQLite file, or a new PostgreSQL
 * database with `ATELIER_TEST_STORE=postgres`), real disk blobs, the local renderer.
 * With `listen: true` it serves on a free loopback port; otherwise use `app.inject`.
 */
export async function createTestApp(
  options: {
    env?: Record<string, string>;
    listen?: boolean;
    startEngine?: boolean;
    overrides?: CoreOverrides;
  } = {},
): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'atelier-test-'));
  const port = options.listen ? await freePort() : 8080;
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    ATELIER_DATA_DIR: dataDir,
    PORT: String(port),
    ATELIER_PUBLIC_BASE_URL: baseUrl,
    ATELIER_LOCAL_LATENCY_MS: '300',
    LOG_LEVEL: 'silent',
    ATELIER_DEMO_ACCOUNT: 'false',
    ...(options.env?.ATELIER_DATABASE_URL ? {} : await testDatabaseEnv()),
    ...options.env,
  });
  let core: Core;
  try {
    core = await createCore(config, { idlePollMs: 50, ...options.overrides });
  } catch (error) {
    await removeTestData(config);
    throw error;
  }
  const app = await buildApp(core);
  if (options.listen) await app.listen({ port, host: '127.0.0.1' });
  if (options.startEngine !== false) {
    core.engine.start();
    core.webhooks.start();
    core.alerts.start();
  }
  return {
    app,
    core,
    baseUrl,
    dataDir,
    async createAccount(email, accountOptions = {}) {
      const { account, apiKey } = await core.accounts.create({
        email: email ?? `user${++counter}-${Date.now()}@example.test`,
        ...accountOptions,
      });
      return { email: account.email, apiKey, id: account.id };
    },
    async close() {
      await app.close();
      await core.close(1000);
      await removeTestData(config);
    },
  };
}

/** The real server on a free port with one account: what end-to-end clients (MCP, browser) need. */
export async function startTestServer(
  options: { env?: Record<string, string>; tier?: string; password?: string } = {},
): Promise<{
  baseUrl: string;
  apiKey: string;
  email: string;
  password: string;
  testApp: TestApp;
  close(): Promise<void>;
}> {
  const testApp = await createTestApp({ listen: true, ...(options.env ? { env: options.env } : {}) });
  const password = options.password ?? 'correct horse battery';
  const { apiKey, email } = await testApp.createAccount(undefined, {
    tier: options.tier ?? 'standard',
    password,
  });
  return { baseUrl: testApp.baseUrl, apiKey, email, password, testApp, close: () => testApp.close() };
}
