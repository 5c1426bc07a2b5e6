// One-line install: `npm pack` makes the tarballs of packages/mcp and packages/client (their prepack
// compiles them), an empty folder installs them from the tarballs (dependencies from the npm
// registry), and the SDK's own client drives the installed tool server over stdio against a test
// Atelier; a script imports the installed typed client. Store-independent: it runs in the SQLite half.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { testStore } from '../support/test-database.js';
import { startTestServer } from '../support/test-server.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const skip = testStore() !== 'sqlite';

describe('the packed tool server and client, installed into an empty folder', { skip }, () => {
  let work = '';
  let app = '';
  let atelier: Awaited<ReturnType<typeof startTestServer>>;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'atelier-pack-'));
    const tarballs = join(work, 'tarballs');
    await mkdir(tarballs);
    for (const name of ['mcp', 'client']) {
      await run('npm', ['pack', '--pack-destination', tarballs], { cwd: join(repoRoot, 'packages', name) });
    }
    app = join(work, 'app');
    await mkdir(app);
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'empty', private: true }));
    const files = (await readdir(tarballs)).map((file) => join(tarballs, file));
    assert.equal(files.length, 2, String(files));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...files], { cwd: app });
    atelier = await startTestServer({ tier: 'pro' });
  });
  after(async () => {
    await atelier?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('installs no native module and builds nothing on install', async () => {
    const { stdout } = await run('find', [join(app, 'node_modules'), '-name', '*.node']);
    assert.equal(stdout.trim(), '');
    const installed = await readdir(join(app, 'node_modules'));
    for (const name of ['sharp', 'better-sqlite3', 'pg', 'fastify', 'typescript', 'tsx']) {
      assert.ok(!installed.includes(name), `${name} was installed`);
    }
  });

  it('the installed atelier-mcp serves the eleven tools and generates images with links', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(app, 'node_modules', '.bin', 'atelier-mcp')],
      cwd: app,
      env: { ATELIER_API_KEY: atelier.apiKey, ATELIER_BASE_URL: atelier.baseUrl },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'pack-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.length, 11);
      const result = (await client.callTool({
        name: 'generate_image',
        arguments: { prompt: 'installed with one line', wait: 30 },
      })) as CallToolResult;
      assert.equal((result.structuredContent as { finished: boolean }).finished, true);
      const link = result.content.find((block) => block.type === 'resource_link');
      assert.ok(link && link.type === 'resource_link' && link.uri.startsWith(`${atelier.baseUrl}/files/`));
      const thumbnail = result.content.find((block) => block.type === 'image');
      assert.equal(thumbnail?.type === 'image' && thumbnail.mimeType, 'image/webp');
      const read = await client.readResource({ uri: link.uri });
      assert.equal(read.contents[0]?.mimeType, 'image/png');
    } finally {
      await client.close();
    }
  });

  it('the installed @atelier/client is importable and typed calls work', async () => {
    const script = join(app, 'status.mjs');
    await writeFile(
      script,
      `import { createAtelierClient } from '@atelier/client';
const client = createAtelierClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
const status = await client.userStatus();
process.stdout.write(JSON.stringify(status));`,
    );
    const { stdout } = await run(process.execPath, [script], {
      cwd: app,
      env: { ...process.env, BASE: atelier.baseUrl, KEY: atelier.apiKey },
    });
    const status = JSON.parse(stdout) as { email: string; tier: string };
    assert.equal(status.email, atelier.email);
    assert.equal(status.tier, 'pro');
  });
});
