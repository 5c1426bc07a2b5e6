import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { testStore } from '../support/test-database.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { connectRemote } from './remote-mcp-support.js';

/**
 * Two api nodes on one PostgreSQL database, as behind a load balancer: /mcp is stateless and an MCP
 * task's id names Atelier's own tasks, so a task created through one node is polled, read and
 * canceled through the other. Node A runs no engine; node B renders.
 */

const onPostgres = testStore() === 'postgres';
let nodeA: TestApp;
let nodeB: TestApp;
let onA: Client;
let onB: Client;

before(async () => {
  if (!onPostgres) return;
  nodeA = await createTestApp({ listen: true, startEngine: false, env: { ATELIER_ROLES: 'api' } });
  nodeB = await createTestApp({
    listen: true,
    env: {
      ATELIER_DATABASE_URL: nodeA.core.config.databaseUrl,
      ATELIER_DATA_DIR: nodeA.dataDir,
      // One public address for the cluster, as behind a load balancer.
      ATELIER_PUBLIC_BASE_URL: nodeA.baseUrl,
    },
  });
  const { apiKey } = await nodeA.createAccount(undefined, { tier: 'pro' });
  onA = await connectRemote(nodeA.baseUrl, apiKey);
  onB = await connectRemote(nodeB.baseUrl, apiKey);
});
after(async () => {
  await onA?.close();
  await onB?.close();
  // Node B shares node A's database and data directory: node A removes them.
  await nodeB?.app.close();
  await nodeB?.core.close(1000);
  await nodeA?.close();
});

test('a task created on one api node is polled and read on another', { skip: !onPostgres }, async () => {
  const created = await onA.request(
    {
      method: 'tools/call',
      params: { name: 'generate_image', arguments: { prompt: 'across nodes', count: 2 }, task: {} },
    },
    CreateTaskResultSchema,
  );
  const { taskId } = created.task;
  let task = await onB.experimental.tasks.getTask(taskId);
  while (task.status === 'working') {
    await new Promise((resolve) => setTimeout(resolve, 200));
    task = await onB.experimental.tasks.getTask(taskId);
  }
  assert.equal(task.status, 'completed');
  assert.equal((await onA.experimental.tasks.getTask(taskId)).status, 'completed');
  const result = (await onB.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
  const links = result.content.filter((block) => block.type === 'resource_link');
  assert.equal(links.length, 2);
  assert.equal(result.content.filter((block) => block.type === 'image').length, 2);
});

test('a task created on one node is canceled through the other', { skip: !onPostgres }, async () => {
  // Node B renders in 300 ms: submit on A while B's engine is paused, so the tasks wait.
  await nodeB.core.engine.stop(1000);
  const created = await onA.request(
    {
      method: 'tools/call',
      params: { name: 'generate_image', arguments: { prompt: 'cancel across nodes' }, task: {} },
    },
    CreateTaskResultSchema,
  );
  const cancelled = await onB.experimental.tasks.cancelTask(created.task.taskId);
  assert.equal(cancelled.status, 'cancelled');
  assert.equal((await onA.experimental.tasks.getTask(created.task.taskId)).status, 'cancelled');
});
