// Spend confirmed by the person (issue 46): generate_image, refine_image and act_on_image ask through
// MCP elicitation before spending, with the SDK's own client over /mcp (stateless) and over stdio.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { mainArgs } from '../fakes/stdio-session.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { type AskedClient, askedClient, pricedEnv, remoteTransport } from './spend-confirmation-support.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');

describe('spend confirmation over remote MCP', () => {
  let t: TestApp;
  let apiKey = '';
  let accountId = '';
  let asking: AskedClient;
  let unable: AskedClient;

  const works = async () => {
    const response = await fetch(`${t.baseUrl}/api/v1/history?limit=1`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    return ((await response.json()) as { total: number }).total;
  };
  const call = async (client: AskedClient, args: Record<string, unknown>) =>
    (await client.client.callTool({ name: 'generate_image', arguments: args })) as CallToolResult;

  before(async () => {
    t = await createTestApp({ listen: true, env: pricedEnv });
    ({ apiKey, id: accountId } = await t.createAccount(undefined, { tier: 'pro' }));
    // Keys ask too, above nothing: every paid call asks.
    await t.core.spendConfirmations.set(accountId, { above_micros: 0, api_keys: true, sign_in: true });
    asking = await askedClient(remoteTransport(t.baseUrl, apiKey));
    unable = await askedClient(remoteTransport(t.baseUrl, apiKey), false);
  });
  after(async () => {
    await asking?.client.close();
    await unable?.client.close();
    await t?.close();
  });

  it('asks with the price; accepted, the images are made and charged', async () => {
    asking.answer = 'accept';
    const before = await works();
    const result = await call(asking, { prompt: 'a red kite', count: 4, imageSize: '4K', wait: 30 });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(asking.asked.length, 1);
    assert.match(
      asking.asked[0] ?? '',
      /^4 images at 4K on the default model, at most \$0\.96 — go ahead\?$/,
    );
    const structured = result.structuredContent as { task_ids: string[]; finished: boolean };
    assert.equal(structured.task_ids.length, 4);
    assert.equal(structured.finished, true);
    assert.equal(await works(), before + 1);
    const usage = await fetch(`${t.baseUrl}/api/v1/user/usage`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const report = (await usage.json()) as { totals: { completed: number; cost_micros: number } };
    assert.equal(report.totals.completed, 4);
    assert.ok(report.totals.cost_micros > 0, JSON.stringify(report.totals));
  });

  it('declined or canceled: a result that says so, nothing created', async () => {
    for (const answer of ['decline', 'cancel'] as const) {
      asking.answer = answer;
      const before = await works();
      const result = await call(asking, { prompt: `declined ${answer}`, wait: 5 });
      assert.notEqual(result.isError, true);
      const structured = result.structuredContent as { task_ids: string[]; hint: string };
      assert.deepEqual(structured.task_ids, []);
      assert.match(structured.hint, /The person declined .*nothing was created or charged/);
      assert.equal(await works(), before);
    }
  });

  it('a task-augmented call the person declines is a failed task, nothing created', async () => {
    asking.answer = 'decline';
    const before = await works();
    const created = await asking.client.request(
      {
        method: 'tools/call',
        params: { name: 'generate_image', arguments: { prompt: 'task declined' }, task: {} },
      },
      CreateTaskResultSchema,
    );
    assert.equal(created.task.status, 'failed');
    assert.match(created.task.statusMessage ?? '', /The person declined/);
    assert.equal(await works(), before);
  });

  it('refine_image and act_on_image ask too', async () => {
    asking.answer = 'accept';
    const made = await call(asking, { prompt: 'a base to refine', wait: 30 });
    const [taskId] = (made.structuredContent as { task_ids: string[] }).task_ids;
    asking.answer = 'decline';
    const asked = asking.asked.length;
    const refined = (await asking.client.callTool({
      name: 'refine_image',
      arguments: { work_id: taskId, instruction: 'darker sky' },
    })) as CallToolResult;
    assert.deepEqual((refined.structuredContent as { task_ids: string[] }).task_ids, []);
    assert.match(
      asking.asked[asked] ?? '',
      new RegExp(`^1 image refining ${taskId} on the default model, at most`),
    );
    const acted = (await asking.client.callTool({
      name: 'act_on_image',
      arguments: { id: taskId, action: 'upscale' },
    })) as CallToolResult;
    assert.deepEqual((acted.structuredContent as { task_ids: string[] }).task_ids, []);
    assert.match(asking.asked[asked + 1] ?? '', new RegExp(`^1 image by upscale of ${taskId}, `));
  });

  it('a host without elicitation gets a tool error naming the setting; nothing created', async () => {
    const before = await works();
    const result = await call(unable, { prompt: 'no way to ask' });
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      /^confirmation_required: .*cannot ask.*"Spend confirmation" setting on the Atelier website's account page/s,
    );
    assert.equal(await works(), before);
  });

  it('below the threshold, or with the switch off for keys, nothing is asked', async () => {
    asking.answer = 'decline';
    const asked = asking.asked.length;
    await t.core.spendConfirmations.set(accountId, {
      above_micros: 1_000_000_000,
      api_keys: true,
      sign_in: true,
    });
    const cheap = await call(asking, { prompt: 'under the threshold' });
    assert.equal((cheap.structuredContent as { task_ids: string[] }).task_ids.length, 1);
    await t.core.spendConfirmations.set(accountId, { above_micros: 0, api_keys: false, sign_in: true });
    const off = await call(unable, { prompt: 'keys do not ask' });
    assert.equal((off.structuredContent as { task_ids: string[] }).task_ids.length, 1);
    assert.equal(asking.asked.length, asked);
    await t.core.spendConfirmations.set(accountId, { above_micros: 0, api_keys: true, sign_in: true });
  });

  it('GET /api/v1/user/status says the setting', async () => {
    const response = await fetch(`${t.baseUrl}/api/v1/user/status`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const status = (await response.json()) as { spend_confirmation: unknown };
    assert.deepEqual(status.spend_confirmation, { above_micros: 0, api_keys: true, sign_in: true });
  });

  it('an answer to nothing, or to another POST, is accepted and dropped (202)', async () => {
    for (const id of [7, 'atl_req_unknown']) {
      const response = await fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, result: { action: 'accept', content: {} } }),
      });
      assert.equal(response.status, 202);
    }
  });
});

describe('spend confirmation over stdio (an API key)', () => {
  let t: TestApp;
  let asking: AskedClient;

  before(async () => {
    t = await createTestApp({ listen: true, env: pricedEnv });
    const { apiKey, id } = await t.createAccount(undefined, { tier: 'pro' });
    await t.core.spendConfirmations.set(id, { above_micros: 0, api_keys: true, sign_in: true });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: mainArgs,
      cwd: repoRoot,
      env: { ATELIER_API_KEY: apiKey, ATELIER_BASE_URL: t.baseUrl },
      stderr: 'pipe',
    });
    asking = await askedClient(transport);
  });
  after(async () => {
    await asking?.client.close();
    await t?.close();
  });

  it('asks the person through the stdio host; accepted, then declined', async () => {
    const accepted = (await asking.client.callTool(
      { name: 'generate_image', arguments: { prompt: 'over stdio', count: 3 } },
      CallToolResultSchema,
    )) as CallToolResult;
    assert.equal((accepted.structuredContent as { task_ids: string[] }).task_ids.length, 3);
    assert.match(asking.asked[0] ?? '', /^3 images on the default model, at most \$/);
    asking.answer = 'decline';
    const declined = (await asking.client.callTool({
      name: 'generate_image',
      arguments: { prompt: 'declined over stdio' },
    })) as CallToolResult;
    assert.deepEqual((declined.structuredContent as { task_ids: string[] }).task_ids, []);
    assert.equal(asking.asked.length, 2);
  });
});

describe('spend confirmation nobody answers', () => {
  let t: TestApp;
  let silent: AskedClient;
  let apiKey = '';

  before(async () => {
    t = await createTestApp({ listen: true, env: { ...pricedEnv, ATELIER_MCP_CONFIRM_TIMEOUT_MS: '1000' } });
    const created = await t.createAccount(undefined, { tier: 'pro' });
    apiKey = created.apiKey;
    const id = created.id;
    await t.core.spendConfirmations.set(id, { above_micros: 0, api_keys: true, sign_in: true });
    silent = await askedClient(remoteTransport(t.baseUrl, apiKey));
    silent.answer = 'never';
  });
  after(async () => {
    await silent?.client.close();
    await t?.close();
  });

  it('ends as not confirmed after ATELIER_MCP_CONFIRM_TIMEOUT_MS; nothing created', async () => {
    const result = (await silent.client.callTool({
      name: 'generate_image',
      arguments: { prompt: 'nobody answers' },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      /^not_confirmed: The person did not answer ".*" within 1 s; nothing was spent\.$/,
    );
    assert.equal(silent.asked.length, 1);
    const history = await fetch(`${t.baseUrl}/api/v1/history?limit=1`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    assert.equal(((await history.json()) as { total: number }).total, 0);
  });
});
