// The gallery app (MCP Apps, issue 46) as a host without a browser sees it, on both servers: the real
// stdio process and the remote /mcp endpoint, with the SDK's own client. The generation tools and
// list_my_generations name the ui:// resource in their _meta; resources/read answers the built page
// (one self-contained HTML file) with its CSP in _meta.ui; the results the page reads carry what it
// needs (task ids, statuses, image URLs and sizes), and stay what hosts without the extension got.
// The page itself, driven through the extension's bridge, is test/browser/mcp-apps-gallery.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GALLERY_URI } from '../../src/edges/mcp/gallery-app.js';
import { type McpSession, startMcp } from '../fakes/stdio-session.js';
import { startTestServer } from '../support/test-server.js';
import { connectRemote } from './remote-mcp-support.js';

const APP_TOOLS = ['act_on_image', 'generate_image', 'list_my_generations', 'refine_image'];

async function checkGallery(mcp: Client, baseUrl: string): Promise<void> {
  const { tools } = await mcp.listTools();
  const declaring = tools.filter((tool) => tool._meta !== undefined).map((tool) => tool.name);
  assert.deepEqual(declaring.sort(), APP_TOOLS);
  for (const name of APP_TOOLS) {
    const meta = tools.find((tool) => tool.name === name)?._meta as Record<string, unknown>;
    assert.deepEqual(meta.ui, { resourceUri: GALLERY_URI }, name);
    assert.equal(meta[RESOURCE_URI_META_KEY], GALLERY_URI, `${name}: the older flat key too`);
  }

  const { resources } = await mcp.listResources();
  const listed = resources.find((resource) => resource.uri === GALLERY_URI);
  assert.equal(listed?.mimeType, RESOURCE_MIME_TYPE);
  const csp = { resourceDomains: [new URL(baseUrl).origin], connectDomains: [] };
  assert.deepEqual((listed?._meta as { ui?: unknown } | undefined)?.ui, { csp, prefersBorder: false });

  const read = await mcp.readResource({ uri: GALLERY_URI });
  const [content] = read.contents;
  assert.ok(content && 'text' in content);
  assert.equal(content.mimeType, RESOURCE_MIME_TYPE);
  assert.deepEqual((content._meta as { ui: unknown }).ui, { csp, prefersBorder: false });
  const html = content.text;
  assert.match(html, /^<!doctype html>/i);
  assert.match(html, /<script type="module">[\s\S]{10000,}<\/script>/, 'the bundled script is inline');
  // Self-contained: nothing loaded from anywhere (the sandbox would refuse it anyway).
  assert.doesNotMatch(html, /<script[^>]+src=|<link\b|@import|url\(\s*['"]?https?:/i);
  assert.ok(html.length < 400_000, `${html.length} bytes`);
}

describe('the gallery app (MCP Apps) on the stdio and remote servers', () => {
  let atelier: Awaited<ReturnType<typeof startTestServer>>;
  let stdio: McpSession;
  let remote: Client;

  before(async () => {
    atelier = await startTestServer();
    stdio = await startMcp({ ATELIER_API_KEY: atelier.apiKey, ATELIER_BASE_URL: atelier.baseUrl });
    remote = await connectRemote(atelier.baseUrl, atelier.apiKey);
  });
  after(async () => {
    await stdio?.close();
    await remote?.close();
    await atelier?.close();
  });

  it('stdio: four tools declare ui://atelier/gallery.html; resources/read answers the page and its CSP', async () => {
    await checkGallery(stdio.client, atelier.baseUrl);
  });

  it('remote /mcp: the same declarations, the same page', async () => {
    await checkGallery(remote, atelier.baseUrl);
  });

  it("the results carry what the page reads, and today's text, links and thumbnails for other hosts", async () => {
    const started = (await remote.callTool({
      name: 'generate_image',
      arguments: { prompt: 'a red kite', imageSize: '1K' },
    })) as CallToolResult;
    const submitted = started.structuredContent as { task_ids: string[]; finished: boolean };
    assert.equal(submitted.task_ids.length, 1);
    assert.equal(submitted.finished, false);
    assert.equal(started.content[0]?.type, 'text', 'the JSON text block, as before');

    const waited = (await remote.callTool({
      name: 'generate_image',
      arguments: { prompt: 'a blue kite', imageSize: '1K', wait: 60 },
    })) as CallToolResult;
    const { tasks } = waited.structuredContent as {
      tasks: Array<{ task_id: string; status: string; imageUrl: string; width: number; height: number }>;
    };
    const [task] = tasks;
    assert.equal(task?.status, 'completed');
    assert.ok(task.imageUrl.startsWith(`${atelier.baseUrl}/files/`));
    assert.ok(task.width > 0 && task.height > 0);
    assert.deepEqual(
      waited.content.map((block) => block.type),
      ['text', 'text', 'resource_link', 'image'],
      'JSON, caption, link, thumbnail: unchanged by the app',
    );

    const history = (await remote.callTool({ name: 'list_my_generations', arguments: {} })) as CallToolResult;
    const { items } = history.structuredContent as { items: Array<{ id: string; images: string[] }> };
    assert.ok(items.some((item) => item.images.includes(task.imageUrl)));
  });
});
