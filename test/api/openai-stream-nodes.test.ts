import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { testStore } from '../support/test-database.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * A stream's partial frames across nodes (PostgreSQL): the API node holding the stream runs no
 * engine; another node on the same database and bucket renders, stores each frame as a blob and
 * announces it on the task change feed (LISTEN/NOTIFY); the API node reads and sends it.
 */

const onPostgres = testStore() === 'postgres';
let api: TestApp;
let worker: TestApp;

before(async () => {
  if (!onPostgres) return;
  api = await createTestApp({
    listen: true,
    startEngine: false,
    env: { ATELIER_ROLES: 'api', ATELIER_LOCAL_LATENCY_MS: '2000' },
  });
  worker = await createTestApp({
    env: {
      ATELIER_DATABASE_URL: api.core.config.databaseUrl,
      ATELIER_DATA_DIR: api.dataDir,
      // One public address for the cluster, as behind a load balancer.
      ATELIER_PUBLIC_BASE_URL: api.baseUrl,
      ATELIER_LOCAL_LATENCY_MS: '2000',
    },
  });
});
after(async () => {
  // The worker shares the API node's database and data directory: the API node removes them.
  await worker?.app.close();
  await worker?.core.close(1000);
  await api?.close();
});

test('partial frames rendered on another node reach the stream', { skip: !onPostgres }, async () => {
  const { apiKey } = await api.createAccount();
  const client = new OpenAI({ baseURL: `${api.baseUrl}/v1`, apiKey, maxRetries: 0 });
  const stream = await client.images.generate({
    model: 'pro',
    prompt: 'two nodes',
    stream: true,
    partial_images: 2,
  });
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  assert.deepEqual(types, [
    'image_generation.partial_image',
    'image_generation.partial_image',
    'image_generation.completed',
  ]);
  const [task] = await api.core.resources.db.selectFrom('tasks').select(['partial_frames']).execute();
  assert.equal(task?.partial_frames, 2);
});
