// The read-only endpoint (/mcp/readonly) and the discovery document (/.well-known/mcp/server.json),
// driven by the MCP SDK's own client against the real app with the local renderer: the read tools
// only whatever the credential (a full key, an OAuth access token), write tools refused by name with
// nothing created, the same authentication as /mcp, and list_models/quote_image as the API answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { checkResourceAllowed } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { READ_TOOLS } from '../../src/edges/mcp/read-only.js';
import { grantsOver } from '../support/oauth-contract.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { connectRemote, INITIALIZE, postMcp } from './remote-mcp-support.js';

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('remote MCP at /mcp/readonly', () => {
  let t: TestApp;
  let apiKey = '';
  let accountId = '';
  let mcp: Client;
  const api = (path: string) =>
    fetch(`${t.baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${apiKey}` } });

  before(async () => {
    t = await createTestApp({ listen: true });
    ({ apiKey, id: accountId } = await t.createAccount(undefined, { tier: 'pro' }));
    mcp = await connectRemote(t.baseUrl, apiKey, '/mcp/readonly');
  });
  after(async () => {
    await mcp?.close();
    await t?.close();
  });

  it('lists the read tools only, with a full key; no prompts, no MCP tasks', async () => {
    const { tools } = await mcp.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [...READ_TOOLS].sort());
    for (const name of ['generate_image', 'refine_image', 'act_on_image', 'upload_reference_image']) {
      assert.ok(!tools.some((tool) => tool.name === name), name);
    }
    assert.equal(mcp.getServerCapabilities()?.tasks, undefined);
    assert.equal(mcp.getServerCapabilities()?.prompts, undefined);
    // The full endpoint, same key: the eleven tools and the prompts.
    const full = await connectRemote(t.baseUrl, apiKey);
    try {
      assert.equal((await full.listTools()).tools.length, 11);
      assert.equal((await full.listPrompts()).prompts.length, 3);
    } finally {
      await full.close();
    }
  });

  it('refuses generate_image clearly, and nothing is created or charged', async () => {
    const result = (await mcp.callTool({
      name: 'generate_image',
      arguments: { prompt: 'not here', count: 4, imageSize: '4K' },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(
      textOf(result),
      new RegExp(
        `^read_only: generate_image is not offered on this read-only MCP endpoint.*${t.baseUrl}/mcp\\)`,
        's',
      ),
    );
    // Task-augmented, it is refused too: the server offers no MCP tasks.
    await assert.rejects(
      mcp.request(
        { method: 'tools/call', params: { name: 'generate_image', arguments: { prompt: 'x' }, task: {} } },
        CallToolResultSchema,
      ),
    );
    const history = (await (await api('/history')).json()) as { total: number };
    assert.equal(history.total, 0);
  });

  it('list_models answers GET /api/v1/models; quote_image prices a call; get_account_status reads', async () => {
    const models = (await mcp.callTool({ name: 'list_models', arguments: {} })) as CallToolResult;
    assert.equal(models.isError, undefined, textOf(models));
    assert.deepEqual(models.structuredContent, await (await api('/models')).json());
    assert.match((models.content[1] as { text: string }).text, /\(default\)/);
    const quote = (await mcp.callTool({
      name: 'quote_image',
      arguments: { prompt: 'a quote', count: 2, imageSize: '4K' },
    })) as CallToolResult;
    assert.equal(quote.isError, undefined, textOf(quote));
    assert.equal((quote.structuredContent as { count: number }).count, 2);
    const status = (await mcp.callTool({ name: 'get_account_status', arguments: {} })) as CallToolResult;
    assert.equal(status.isError, undefined, textOf(status));
  });

  it("quote_image with work_id prices refine_image's call; refine_image honours that quote_id", async () => {
    const full = await connectRemote(t.baseUrl, apiKey);
    try {
      const made = (await full.callTool({
        name: 'generate_image',
        arguments: { prompt: 'a harbour', imageSize: '1K', wait: 60 },
      })) as CallToolResult;
      const [taskId] = (made.structuredContent as { task_ids: string[] }).task_ids;
      const refine = { work_id: taskId, imageSize: '2K' };
      const quote = (await mcp.callTool({
        name: 'quote_image',
        arguments: { ...refine, prompt: 'darker sky' },
      })) as CallToolResult;
      assert.equal(quote.isError, undefined, textOf(quote));
      const { quote_id } = quote.structuredContent as { quote_id: string };
      const refined = (await full.callTool({
        name: 'refine_image',
        arguments: { ...refine, instruction: 'darker sky', quote_id },
      })) as CallToolResult;
      assert.equal(refined.isError, undefined, textOf(refined));
      // Another instruction is another body: the quote does not cover it.
      const other = (await full.callTool({
        name: 'refine_image',
        arguments: { ...refine, instruction: 'a brighter sky', quote_id },
      })) as CallToolResult;
      assert.match(textOf(other), /^invalid_request \(HTTP 400\): quote_id/);
    } finally {
      await full.close();
    }
  });

  it('an OAuth access token issued for /mcp serves /mcp/readonly, with the read tools only', async () => {
    const { tokensFor } = await grantsOver(t.core, t.baseUrl);
    const { access_token } = await tokensFor(accountId);
    const signedIn = await connectRemote(t.baseUrl, access_token, '/mcp/readonly');
    try {
      const { tools } = await signedIn.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [...READ_TOOLS].sort());
      const refused = (await signedIn.callTool({ name: 'act_on_image', arguments: {} })) as CallToolResult;
      assert.match(textOf(refused), /^read_only: act_on_image/);
      const status = (await signedIn.callTool({
        name: 'get_account_status',
        arguments: {},
      })) as CallToolResult;
      assert.equal(status.isError, undefined, textOf(status));
    } finally {
      await signedIn.close();
    }
  });

  it("authenticates as /mcp: 401 names /mcp's protected-resource metadata, whose resource covers /mcp/readonly", async () => {
    const none = await postMcp(t.baseUrl, {}, INITIALIZE, '/mcp/readonly');
    assert.equal(none.status, 401);
    const challenge = none.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? '';
    assert.equal(metadataUrl, `${t.baseUrl}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(((await none.json()) as { error: { type: string } }).error.type, 'unauthorized');
    const metadata = (await (await fetch(metadataUrl)).json()) as { resource: string };
    // What the SDK's client checks before it signs in (selectResourceURL).
    assert.ok(
      checkResourceAllowed({
        requestedResource: `${t.baseUrl}/mcp/readonly`,
        configuredResource: metadata.resource,
      }),
    );
    const wrong = await postMcp(t.baseUrl, { authorization: 'Bearer atl_nope' }, INITIALIZE, '/mcp/readonly');
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    await wrong.body?.cancel();
    const foreign = await postMcp(
      t.baseUrl,
      { authorization: `Bearer ${apiKey}`, origin: 'https://evil.example' },
      INITIALIZE,
      '/mcp/readonly',
    );
    assert.equal(foreign.status, 403);
    assert.match(((await foreign.json()) as { error: { message: string } }).error.message, /\/mcp\/readonly/);
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(`${t.baseUrl}/mcp/readonly`, {
        method,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      assert.equal(answer.status, 405, method);
      assert.equal(answer.headers.get('allow'), 'POST');
      await answer.body?.cancel();
    }
  });
});

describe('discovery: /.well-known/mcp/server.json and /mcp/icon.svg', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ listen: true });
  });
  after(async () => {
    await t?.close();
  });

  it("answers this deployment's card without credentials: its endpoints, auth and icon", async () => {
    const answer = await fetch(`${t.baseUrl}/.well-known/mcp/server.json`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    const card = (await answer.json()) as {
      name: string;
      version: string;
      remotes: Array<{ type: string; url: string }>;
      icons: Array<{ src: string }>;
      _meta: Record<string, { authentication: { oauth: { protectedResourceMetadata: string } | null } }>;
    };
    assert.deepEqual(
      card.remotes.map((remote) => [remote.type, remote.url]),
      [
        ['streamable-http', `${t.baseUrl}/mcp`],
        ['streamable-http', `${t.baseUrl}/mcp/readonly`],
      ],
    );
    const meta = card._meta['io.modelcontextprotocol.registry/publisher-provided'];
    assert.equal(
      meta?.authentication.oauth?.protectedResourceMetadata,
      `${t.baseUrl}/.well-known/oauth-protected-resource/mcp`,
    );
    // The version and name are the MCP server's own (initialize says the same).
    const mcp = await connectRemote(t.baseUrl, (await t.createAccount()).apiKey);
    try {
      assert.equal(card.version, mcp.getServerVersion()?.version);
    } finally {
      await mcp.close();
    }
    const icon = await fetch(card.icons[0]?.src ?? '');
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
    assert.match(icon.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.match(await icon.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });
});
