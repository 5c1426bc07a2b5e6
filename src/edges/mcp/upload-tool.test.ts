// upload_reference_image through a real MCP client over the SDK's in-memory transport, with a
// scripted Atelier client (the rest of the tools: server.test.ts).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connect, scriptedClient, textOf } from '../../../test/fakes/mcp/in-memory-mcp.js';
import type { UploadInput } from '../client/atelier-client.js';

describe('MCP tools (in-memory)', () => {
  describe('upload_reference_image', () => {
    let dir = '';
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'atelier-mcp-'));
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it('needs exactly one of source_url and path', async () => {
      const { mcp, close } = await connect(scriptedClient({}));
      for (const args of [{}, { source_url: 'https://example.com/a.png', path: '/tmp/a.png' }]) {
        const result = (await mcp.callTool({
          name: 'upload_reference_image',
          arguments: args,
        })) as CallToolResult;
        assert.equal(result.isError, true);
        assert.match(textOf(result), /^invalid_request: pass exactly one of source_url or path/);
      }
      await close();
    });

    it('sends a local file with the media type of its magic bytes, not of its extension', async () => {
      const file = join(dir, 'really-a-png.txt');
      await writeFile(file, Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(32)]));
      let sent: UploadInput | undefined;
      const { mcp, close } = await connect(
        scriptedClient({
          upload: async (input) => {
            sent = input;
            return { url: 'http://x/files/u.png', filename: 'u.png', content_type: 'image/png', bytes: 40 };
          },
        }),
      );
      const result = (await mcp.callTool({
        name: 'upload_reference_image',
        arguments: { path: file },
      })) as CallToolResult;
      assert.equal(result.isError, undefined);
      assert.equal(result.structuredContent?.url, 'http://x/files/u.png');
      assert.ok(sent && 'bytes' in sent);
      assert.equal(sent.contentType, 'image/png');
      assert.equal(sent.bytes.length, 40);
      await close();
    });

    it('refuses a file that is not an image without sending anything', async () => {
      const file = join(dir, 'secret.png');
      await writeFile(file, 'not an image at all');
      let sent = false;
      const { mcp, close } = await connect(
        scriptedClient({
          upload: async () => {
            sent = true;
            throw new Error('must not be called');
          },
        }),
      );
      const result = (await mcp.callTool({
        name: 'upload_reference_image',
        arguments: { path: file },
      })) as CallToolResult;
      assert.equal(result.isError, true);
      assert.match(
        textOf(result),
        /^unsupported_media_type: .*secret\.png is not a png, jpeg, webp, gif or bmp image/,
      );
      assert.equal(sent, false);

      const missing = (await mcp.callTool({
        name: 'upload_reference_image',
        arguments: { path: join(dir, 'nope.png') },
      })) as CallToolResult;
      assert.equal(missing.isError, true);
      assert.match(textOf(missing), /no such file/);

      const directory = (await mcp.callTool({
        name: 'upload_reference_image',
        arguments: { path: dir },
      })) as CallToolResult;
      assert.equal(directory.isError, true);
      assert.match(textOf(directory), /not a regular file/);
      await close();
    });
  });
});
