// upload_reference_image's `path`: absolute, ~/, or relative to the client's one workspace root
// (MCP roots) — never to the server's working directory, which the MCP client chooses.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import type { UploadResult } from '../../src/edges/client/atelier-client.js';
import { call, type McpSession, startMcp, textOf } from '../fakes/stdio-session.js';
import { startTestServer } from '../support/test-server.js';

describe('upload_reference_image: which file a path names', () => {
  let atelier: Awaited<ReturnType<typeof startTestServer>>;
  let workspace = '';
  let other = '';
  let env: Record<string, string>;
  const sessions: McpSession[] = [];

  before(async () => {
    atelier = await startTestServer();
    env = { ATELIER_API_KEY: atelier.apiKey, ATELIER_BASE_URL: atelier.baseUrl };
    workspace = await mkdtemp(join(tmpdir(), 'atelier-mcp-workspace-'));
    other = await mkdtemp(join(tmpdir(), 'atelier-mcp-other-'));
    await mkdir(join(workspace, 'refs'));
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#228833' } })
      .png()
      .toBuffer();
    await writeFile(join(workspace, 'refs', 'sketch.png'), png);
  });

  after(async () => {
    for (const session of sessions) await session.close();
    await atelier?.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(other, { recursive: true, force: true });
  });

  async function session(options: { roots?: () => string[] } = {}) {
    const started = await startMcp(env, options);
    sessions.push(started);
    return started;
  }

  it('an absolute path is read as is', async () => {
    const mcp = await session();
    const result = await call(mcp, 'upload_reference_image', { path: join(workspace, 'refs', 'sketch.png') });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal((result.structuredContent as UploadResult).content_type, 'image/png');
  });

  it('a relative path without a workspace root is refused, saying what to send (not read from the server cwd)', async () => {
    const mcp = await session();
    // package.json exists in the server's working directory (the repository): it must not be what is read.
    for (const path of ['refs/sketch.png', './package.json']) {
      const result = await call(mcp, 'upload_reference_image', { path });
      assert.equal(result.isError, true);
      assert.match(
        textOf(result),
        new RegExp(
          `^invalid_request: path ${JSON.stringify(path).replace(/[.]/g, '\\.')} is relative and this MCP client shares no workspace root to resolve it against: give an absolute path \\(or one starting with ~/\\)`,
        ),
      );
    }
  });

  it("a relative path is resolved against the client's one workspace root; several roots are ambiguous", async () => {
    let roots = [workspace];
    const mcp = await session({ roots: () => roots });
    const result = await call(mcp, 'upload_reference_image', { path: 'refs/sketch.png' });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal((result.structuredContent as UploadResult).content_type, 'image/png');

    const missing = await call(mcp, 'upload_reference_image', { path: 'refs/nothing.png' });
    assert.equal(missing.isError, true);
    assert.match(
      textOf(missing),
      new RegExp(`cannot read path ${join(workspace, 'refs', 'nothing.png')}: no such file`),
    );

    roots = [workspace, other];
    const ambiguous = await call(mcp, 'upload_reference_image', { path: 'refs/sketch.png' });
    assert.equal(ambiguous.isError, true);
    assert.match(
      textOf(ambiguous),
      new RegExp(`is relative and this MCP client shares 2 workspace roots \\(${workspace}, ${other}\\)`),
    );
  });
});
