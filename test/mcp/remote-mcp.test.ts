// The remote MCP endpoint (/mcp, Streamable HTTP, stateless) driven by the MCP SDK's own client
// against the real app with the local renderer: tools, resource links and resources/read, MCP tasks,
// result sizes, authentication and the Origin rule.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  type ResourceLink,
} from '@modelcontextprotocol/sdk/types.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { connectRemote, INITIALIZE, postMcp } from './remote-mcp-support.js';

const ONE_MB = 1024 * 1024;

function linksOf(result: CallToolResult): ResourceLink[] {
  return result.content.filter((block): block is ResourceLink => block.type === 'resource_link');
}
function imagesOf(result: CallToolResult) {
  return result.content.filter((block) => block.type === 'image') as Array<{
    data: string;
    mimeType: string;
  }>;
}

describe('remote MCP at /mcp', () => {
  let t: TestApp;
  let apiKey = '';
  let accountId = '';
  let mcp: Client;

  before(async () => {
    t = await createTestApp({ listen: true });
    ({ apiKey, id: accountId } = await t.createAccount(undefined, { tier: 'pro' }));
    mcp = await connectRemote(t.baseUrl, apiKey);
  });
  after(async () => {
    await mcp?.close();
    await t?.close();
  });

  it('lists the eleven tools; generate_image, refine_image and act_on_image accept task-augmented calls', async () => {
    const { tools } = await mcp.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      'act_on_image',
      'batch_get_tasks',
      'generate_image',
      'get_account_status',
      'get_task',
      'list_models',
      'list_my_generations',
      'list_versions',
      'quote_image',
      'refine_image',
      'upload_reference_image',
    ]);
    for (const name of ['generate_image', 'refine_image', 'act_on_image']) {
      const tool = tools.find((t) => t.name === name);
      assert.equal(tool?.execution?.taskSupport, 'optional', name);
    }
    assert.ok(mcp.getServerCapabilities()?.tasks?.requests?.tools?.call);
  });

  it("the catalog is the resource atelier://models (GET /api/v1/models); generate_image's texts copy none of it", async () => {
    const { resources } = await mcp.listResources();
    assert.ok(resources.some((resource) => resource.uri === 'atelier://models'));
    const read = await mcp.readResource({ uri: 'atelier://models' });
    const [content] = read.contents;
    assert.ok(content && 'text' in content);
    const api = await fetch(`${t.baseUrl}/api/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
    assert.deepEqual(JSON.parse(content.text), await api.json());
    const { tools } = await mcp.listTools();
    const generate = tools.find((tool) => tool.name === 'generate_image');
    const texts = JSON.stringify(generate?.inputSchema);
    assert.match(texts, /list_models/);
    for (const id of ['"pro"', 'flash2', 'none supports fusion']) assert.ok(!texts.includes(id), id);
  });

  it('generate_image with wait answers resource links and thumbnails; resources/read returns the image', async () => {
    const progress: number[] = [];
    const result = (await mcp.callTool(
      { name: 'generate_image', arguments: { prompt: 'a lighthouse', count: 2, wait: 30 } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p.progress) },
    )) as CallToolResult;
    assert.equal(result.isError, undefined, JSON.stringify(result.content[0]));
    const structured = result.structuredContent as { finished: boolean; tasks: Array<{ imageUrl: string }> };
    assert.equal(structured.finished, true);
    assert.ok(progress.length > 0 && progress.at(-1) === 100, `progress ${progress}`);
    const links = linksOf(result);
    assert.equal(links.length, 2);
    const link = links[0] as ResourceLink;
    assert.ok(link.uri.startsWith(`${t.baseUrl}/files/`), link.uri);
    assert.equal(link.mimeType, 'image/png');
    const file = await fetch(link.uri);
    const bytes = Buffer.from(await file.arrayBuffer());
    assert.equal(link.size, bytes.length);
    // Thumbnails are the server's WebP renditions.
    const images = imagesOf(result);
    assert.equal(images.length, 2);
    for (const image of images) assert.equal(image.mimeType, 'image/webp');

    const templates = await mcp.listResourceTemplates();
    assert.deepEqual(
      templates.resourceTemplates.map((template) => template.uriTemplate),
      [`${t.baseUrl}/files/{+key}`],
    );
    const read = await mcp.readResource({ uri: link.uri });
    const content = read.contents[0] as { blob: string; mimeType: string; uri: string };
    assert.equal(content.mimeType, 'image/png');
    assert.ok(Buffer.from(content.blob, 'base64').equals(bytes), 'resources/read returns the file');
    await assert.rejects(mcp.readResource({ uri: 'http://169.254.169.254/latest/meta-data' }), /not found/);
  });

  it('four 4K images come back in one result well under 1 MB', async () => {
    const result = (await mcp.callTool({
      name: 'generate_image',
      arguments: { prompt: 'four big ones', count: 4, imageSize: '4K', wait: 110 },
    })) as CallToolResult;
    const structured = result.structuredContent as { finished: boolean; tasks: Array<{ bytes: number }> };
    assert.equal(structured.finished, true, JSON.stringify(structured));
    assert.equal(linksOf(result).length, 4);
    assert.equal(imagesOf(result).length, 4);
    const files = structured.tasks.reduce((sum, task) => sum + task.bytes, 0);
    const size = JSON.stringify(result).length;
    assert.ok(size < ONE_MB, `result is ${size} bytes`);
    console.log(`four 4K images: files ${files} bytes, tool result ${size} bytes`);
  });

  it('a task-augmented generate_image answers a task at once; tasks/get polls it and tasks/result has the images', async () => {
    const created = await mcp.request(
      {
        method: 'tools/call',
        params: { name: 'generate_image', arguments: { prompt: 'a task', count: 2 }, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    assert.equal(created.task.status, 'working');
    let task = await mcp.experimental.tasks.getTask(taskId);
    while (task.status === 'working') {
      await new Promise((resolve) => setTimeout(resolve, task.pollInterval ?? 500));
      task = await mcp.experimental.tasks.getTask(taskId);
    }
    assert.equal(task.status, 'completed');
    const result = (await mcp.experimental.tasks.getTaskResult(
      taskId,
      CallToolResultSchema,
    )) as CallToolResult;
    const structured = result.structuredContent as { task_ids: string[]; finished: boolean; email: string };
    assert.equal(structured.finished, true);
    assert.equal(structured.task_ids.length, 2);
    assert.match(structured.email, /@example\.test$/);
    assert.equal(linksOf(result).length, 2);
  });

  it("quote_image prices a call without making anything; its quote_id binds generate_image's same arguments only", async () => {
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await mcp.callTool({ name, arguments: args })) as CallToolResult;
    const text = (result: CallToolResult) => JSON.stringify(result.content);
    const args = { prompt: 'a quoted lighthouse', count: 2, imageSize: '1K' };
    const total = async () =>
      ((await call('list_my_generations')).structuredContent as { total: number }).total;
    const before = await total();
    const quoted = await call('quote_image', args);
    assert.equal(quoted.isError, undefined, text(quoted));
    const quote = quoted.structuredContent as { quote_id: string; count: number; max_cost_micros: number };
    assert.equal(quote.count, 2);
    assert.ok(quote.max_cost_micros >= 0);
    assert.equal(await total(), before, 'a quote creates no generation');
    const differs = await call('generate_image', { ...args, count: 3, quote_id: quote.quote_id });
    assert.equal(differs.isError, true);
    assert.match(text(differs), /quote_id/);
    const bound = await call('generate_image', { ...args, quote_id: quote.quote_id });
    assert.equal(bound.isError, undefined, text(bound));
    assert.equal((bound.structuredContent as { task_ids: string[] }).task_ids.length, 2);
  });

  it("the SDK's task stream (callToolStream) sees the task created, its status, then the result", async () => {
    const kinds: string[] = [];
    let result: CallToolResult | undefined;
    for await (const message of mcp.experimental.tasks.callToolStream(
      { name: 'generate_image', arguments: { prompt: 'streamed task' } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      kinds.push(message.type);
      if (message.type === 'result') result = message.result as CallToolResult;
      if (message.type === 'error') assert.fail(String(message.error));
    }
    assert.equal(kinds[0], 'taskCreated');
    assert.equal(kinds.at(-1), 'result');
    assert.ok(result, 'the stream ended with a result');
    assert.equal((result.structuredContent as { finished: boolean }).finished, true);
    assert.equal(linksOf(result).length, 1);
  });

  it('tasks/result asked before the task is done waits for it (on a stateless node)', async () => {
    const created = await mcp.request(
      {
        method: 'tools/call',
        params: { name: 'generate_image', arguments: { prompt: 'patience' }, task: {} },
      },
      CreateTaskResultSchema,
    );
    const result = (await mcp.experimental.tasks.getTaskResult(
      created.task.taskId,
      CallToolResultSchema,
    )) as CallToolResult;
    assert.equal((result.structuredContent as { finished: boolean }).finished, true);
    assert.equal(linksOf(result).length, 1);
  });

  it('another key cannot read a task: the key decides, not the task id', async () => {
    const created = await mcp.request(
      { method: 'tools/call', params: { name: 'generate_image', arguments: { prompt: 'mine' }, task: {} } },
      CreateTaskResultSchema,
    );
    const other = await t.createAccount();
    const stranger = await connectRemote(t.baseUrl, other.apiKey);
    try {
      await assert.rejects(stranger.experimental.tasks.getTask(created.task.taskId), /not found/i);
      await assert.rejects(stranger.experimental.tasks.cancelTask(created.task.taskId), /not found/i);
    } finally {
      await stranger.close();
    }
  });

  it('refuses a missing or unknown key with 401 and WWW-Authenticate', async () => {
    const missing = await postMcp(t.baseUrl, {}, INITIALIZE);
    assert.equal(missing.status, 401);
    assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer /);
    assert.equal(((await missing.json()) as { error: { type: string } }).error.type, 'unauthorized');
    const wrong = await postMcp(t.baseUrl, { authorization: 'Bearer atl_nope' }, INITIALIZE);
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /^Bearer /);
    assert.equal(((await wrong.json()) as { error: { type: string } }).error.type, 'invalid_api_key');
  });

  it('refuses a browser Origin other than the public base URL (DNS rebinding), allows its own and none', async () => {
    const auth = { authorization: `Bearer ${apiKey}` };
    const evil = await postMcp(t.baseUrl, { ...auth, origin: 'http://evil.example' }, INITIALIZE);
    assert.equal(evil.status, 403);
    assert.equal(((await evil.json()) as { error: { type: string } }).error.type, 'forbidden');
    const own = await postMcp(t.baseUrl, { ...auth, origin: new URL(t.baseUrl).origin }, INITIALIZE);
    assert.equal(own.status, 200);
    await own.body?.cancel();
    // Stateless: no session id is handed out (none could ever stand in for the key).
    const none = await postMcp(t.baseUrl, auth, INITIALIZE);
    assert.equal(none.status, 200);
    assert.equal(none.headers.get('mcp-session-id'), null);
    await none.body?.cancel();
  });

  it('a read-scope key reaches the read tools only: the routes refuse the rest', async () => {
    const read = await t.core.accounts.createKey(accountId, { name: 'dashboard', scope: 'read' });
    const reader = await connectRemote(t.baseUrl, read.apiKey);
    try {
      const status = (await reader.callTool({ name: 'get_account_status', arguments: {} })) as CallToolResult;
      assert.equal(status.isError, undefined, JSON.stringify(status.content));
      const history = (await reader.callTool({
        name: 'list_my_generations',
        arguments: {},
      })) as CallToolResult;
      assert.equal(history.isError, undefined);
      const generate = (await reader.callTool({
        name: 'generate_image',
        arguments: { prompt: 'not with this key' },
      })) as CallToolResult;
      assert.equal(generate.isError, true);
      assert.match((generate.content[0] as { text: string }).text, /^insufficient_scope \(HTTP 403\)/);
      // Task-augmented, the refusal is a task that failed, saying why.
      const created = await reader.request(
        {
          method: 'tools/call',
          params: { name: 'generate_image', arguments: { prompt: 'nor as a task' }, task: {} },
        },
        CreateTaskResultSchema,
      );
      assert.equal(created.task.status, 'failed');
      assert.match(created.task.statusMessage ?? '', /^insufficient_scope \(HTTP 403\)/);
    } finally {
      await reader.close();
    }
  });

  it('upload_reference_image refuses a local path remotely (the server disk is not the agent’s)', async () => {
    const result = (await mcp.callTool({
      name: 'upload_reference_image',
      arguments: { path: '/etc/hostname' },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match((result.content[0] as { text: string }).text, /not available on the remote MCP endpoint/);
  });
});

describe('remote MCP tasks: cancel', () => {
  let t: TestApp;
  let mcp: Client;

  before(async () => {
    // No engine: tasks stay queued until canceled.
    t = await createTestApp({ listen: true, startEngine: false });
    const { apiKey } = await t.createAccount(undefined, { tier: 'pro' });
    mcp = await connectRemote(t.baseUrl, apiKey);
  });
  after(async () => {
    await mcp?.close();
    await t?.close();
  });

  it('tasks/cancel cancels the Atelier tasks; tasks/get then says cancelled', async () => {
    const created = await mcp.request(
      {
        method: 'tools/call',
        params: { name: 'generate_image', arguments: { prompt: 'never mind', count: 2 }, task: {} },
      },
      CreateTaskResultSchema,
    );
    const { taskId } = created.task;
    assert.equal((await mcp.experimental.tasks.getTask(taskId)).status, 'working');
    const cancelled = await mcp.experimental.tasks.cancelTask(taskId);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await mcp.experimental.tasks.getTask(taskId)).status, 'cancelled');
    const rows = await t.core.resources.db.selectFrom('tasks').select(['status', 'error']).execute();
    assert.equal(rows.length, 2);
    for (const row of rows) assert.deepEqual([row.status, row.error], ['failed', 'Canceled']);
    // The result still answers, with the two canceled tasks as data.
    const result = (await mcp.experimental.tasks.getTaskResult(
      taskId,
      CallToolResultSchema,
    )) as CallToolResult;
    const structured = result.structuredContent as { tasks: Array<{ status: string; error: string }> };
    assert.deepEqual(
      structured.tasks.map((task) => [task.status, task.error]),
      [
        ['failed', 'Canceled'],
        ['failed', 'Canceled'],
      ],
    );
    await assert.rejects(mcp.experimental.tasks.cancelTask(taskId), /terminal status/);
  });
});
