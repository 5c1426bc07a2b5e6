// Refining a work through MCP (issue 44): the SDK's own client against the stdio server process and
// against the app's remote /mcp, one long-lived app each, the scenario in refine-scenario.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { TaskRecord } from '../../src/edges/client/atelier-client.js';
import { call, type McpSession, startMcp } from '../fakes/stdio-session.js';
import { createTestApp, startTestServer, type TestApp } from '../support/test-server.js';
import { type RefineContext, refineTwice, refusals, textOf } from './refine-scenario.js';
import { connectRemote } from './remote-mcp-support.js';

describe('refine_image over stdio (the server process calls the HTTP API with its key)', () => {
  let atelier: Awaited<ReturnType<typeof startTestServer>>;
  let mcp: McpSession;
  let ctx: RefineContext;

  before(async () => {
    atelier = await startTestServer();
    const { apiKey: otherKey } = await atelier.testApp.createAccount();
    mcp = await startMcp({ ATELIER_API_KEY: atelier.apiKey, ATELIER_BASE_URL: atelier.baseUrl });
    ctx = {
      call: (name, args) => call(mcp, name, args),
      app: atelier.testApp.app,
      apiKey: atelier.apiKey,
      otherKey,
    };
  });
  after(async () => {
    await mcp?.close();
    await atelier?.close();
  });

  it('generates, refines twice by id; each version names its parent; three versions', async () => {
    await refineTwice(ctx);
  });

  it("refuses another account's work and unknown ids alike, and bad arguments clearly", async () => {
    await refusals(ctx);
  });
});

describe('refine_image over remote MCP (/mcp, in the app)', () => {
  let t: TestApp;
  let mcp: Client;
  let ctx: RefineContext;
  let made: Awaited<ReturnType<typeof refineTwice>>;

  before(async () => {
    t = await createTestApp({ listen: true });
    const { apiKey } = await t.createAccount();
    const { apiKey: otherKey } = await t.createAccount();
    mcp = await connectRemote(t.baseUrl, apiKey);
    ctx = {
      call: async (name, args) => (await mcp.callTool({ name, arguments: args })) as CallToolResult,
      app: t.app,
      apiKey,
      otherKey,
    };
  });
  after(async () => {
    await mcp?.close();
    await t?.close();
  });

  it('generates, refines twice by id; each version names its parent; three versions', async () => {
    made = await refineTwice(ctx);
  });

  it('a task-augmented refine_image answers a task; its result is the next version', async () => {
    const parent = made.taskIds.at(-1);
    const created = await mcp.request(
      {
        method: 'tools/call',
        params: { name: 'refine_image', arguments: { work_id: parent, instruction: 'at night' }, task: {} },
      },
      CreateTaskResultSchema,
    );
    assert.equal(created.task.status, 'working');
    const result = (await mcp.experimental.tasks.getTaskResult(
      created.task.taskId,
      CallToolResultSchema,
    )) as CallToolResult;
    const structured = result.structuredContent as { finished: boolean; tasks: TaskRecord[] };
    assert.equal(structured.finished, true, textOf(result));
    assert.equal(structured.tasks[0]?.parentTaskId, parent);
    assert.ok(result.content.some((block) => block.type === 'resource_link'));
    const listed = await ctx.call('list_versions', { work_id: made.generationIds[0] as string });
    assert.equal((listed.structuredContent as { versions: unknown[] }).versions.length, 4);

    // A refused refine as a task: a failed task whose result is the tool error.
    const refused = await mcp.request(
      {
        method: 'tools/call',
        params: { name: 'refine_image', arguments: { work_id: 'tsk_nope', instruction: 'x' }, task: {} },
      },
      CreateTaskResultSchema,
    );
    assert.equal(refused.task.status, 'failed');
    assert.match(String(refused.task.statusMessage), /^invalid_request \(HTTP 400\): work_id names no /);
  });

  it("refuses another account's work and unknown ids alike, and bad arguments clearly", async () => {
    await refusals(ctx);
  });
});
