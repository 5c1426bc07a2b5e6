// Actions on an image through MCP (issue 45): the SDK's own client against the stdio server process
// and against the app's remote /mcp, on the local renderer, the scenario in actions-scenario.ts; and a
// deployment whose catalog configures no expand route, where list_models does not offer it and the tool does not run it.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/index.js';
import { call, type McpSession, startMcp } from '../fakes/stdio-session.js';
import { createTestApp, startTestServer, type TestApp } from '../support/test-server.js';
import { actionRefusals, actOnEveryAction } from './actions-scenario.js';
import { finished, type RefineContext, textOf } from './refine-scenario.js';
import { connectRemote } from './remote-mcp-support.js';

/** The actions list_models says this deployment offers, sorted. */
async function offeredActions(mcp: Client): Promise<string[]> {
  const result = (await mcp.callTool({ name: 'list_models', arguments: {} })) as CallToolResult;
  const actions = (result.structuredContent as { actions?: Array<{ action: string }> }).actions ?? [];
  return [...new Set(actions.map((route) => route.action))].sort();
}

describe('act_on_image over stdio (the server process calls the HTTP API with its key)', () => {
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

  it('each action makes a new version naming its parent and the action', async () => {
    await actOnEveryAction(ctx);
  });

  it("refuses another account's work as an unknown one, and bad arguments clearly", async () => {
    await actionRefusals(ctx);
  });
});

describe('act_on_image over remote MCP (/mcp, in the app)', () => {
  let t: TestApp;
  let mcp: Client;
  let ctx: RefineContext;

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

  it('list_models lists the actions the default catalog configures', async () => {
    assert.deepEqual(await offeredActions(mcp), ['expand', 'remove_background', 'reroll', 'upscale', 'vary']);
  });

  it('each action makes a new version naming its parent and the action', async () => {
    await actOnEveryAction(ctx);
  });

  it("refuses another account's work as an unknown one, and bad arguments clearly", async () => {
    await actionRefusals(ctx);
  });
});

describe('act_on_image on a deployment without an expand route', () => {
  let t: TestApp;
  let dir: string;
  let mcp: Client;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-actions-'));
    const catalog = join(dir, 'catalog.json');
    const models = DEFAULT_CATALOG.models.filter((model) => model.action !== 'expand');
    await writeFile(catalog, JSON.stringify({ ...DEFAULT_CATALOG, models }));
    t = await createTestApp({ listen: true, env: { ATELIER_CATALOG: catalog } });
    const { apiKey } = await t.createAccount();
    mcp = await connectRemote(t.baseUrl, apiKey);
  });
  after(async () => {
    await mcp?.close();
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('does not offer expand (list_models), and refuses it with a message saying it is not configured', async () => {
    const offered = await offeredActions(mcp);
    assert.ok(offered.includes('upscale'), String(offered));
    assert.ok(!offered.includes('expand'), String(offered));

    const made = finished(
      (await mcp.callTool({
        name: 'generate_image',
        arguments: { prompt: 'a harbour', imageSize: '1K', wait: 60 },
      })) as CallToolResult,
    );
    const result = (await mcp.callTool({
      name: 'act_on_image',
      arguments: { id: made.task.task_id, action: 'expand', wait: 5 },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^invalid_request \(HTTP 400\): .*expand.*not configured/);
  });
});
