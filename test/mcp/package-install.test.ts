// One-line install: `npm pack` makes the tarballs of packages/mcp and packages/client (their prepack
// builds them). The tool server's tarball installs into an empty folder offline, from an empty npm
// cache (so it has no dependency at all), and the SDK's own client drives the installed atelier-mcp
// over stdio on Node.js 22, the oldest supported line, against a test Atelier: it must offer exactly
// what the source server offers and generate on the local renderer. On Node.js 20 it must refuse to
// start with a clear message. The client's tarball installs from the registry (it depends on Zod) and
// a script imports it. Where the Node.js lines come from: test/support/node-runtimes.ts (the running
// one, the PATH, else the npm registry's `node` package, cached under node_modules/.cache).
// Store-independent: it runs in the SQLite half.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createAtelierClient } from '../../src/edges/client/atelier-client.js';
import { apiKeyTaskIdSeal } from '../../src/edges/mcp/generation-tasks.js';
import { createServer } from '../../src/edges/mcp/server.js';
import { nodeOfLine } from '../support/node-runtimes.js';
import { testStore } from '../support/test-database.js';
import { startTestServer } from '../support/test-server.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const skip = testStore() !== 'sqlite';
const npmQuiet = ['--no-audit', '--no-fund', '--loglevel=error'];

async function emptyFolder(parent: string, name: string): Promise<string> {
  const folder = join(parent, name);
  await mkdir(folder);
  await writeFile(join(folder, 'package.json'), JSON.stringify({ name: 'empty', private: true }));
  return folder;
}

/** Bytes of every file under dir. */
async function bytesUnder(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}

/** As it crosses a wire (the in-memory transport hands objects over as they are, undefined fields included). */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** What a server offers a client: its tools, and its resources, templates and prompts where it declares them. */
async function offer(client: Client) {
  const capabilities = client.getServerCapabilities() ?? {};
  return wire({
    capabilities,
    tools: (await client.listTools()).tools,
    resources: capabilities.resources ? (await client.listResources()).resources : [],
    templates: capabilities.resources ? (await client.listResourceTemplates()).resourceTemplates : [],
    prompts: capabilities.prompts ? (await client.listPrompts()).prompts : [],
  });
}

describe('the packed tool server and client, installed into an empty folder', { skip }, () => {
  let work = '';
  let mcpApp = '';
  let clientApp = '';
  let node22 = '';
  let node20 = '';
  let atelier: Awaited<ReturnType<typeof startTestServer>>;
  let reference: Client;

  before(
    async () => {
      work = await mkdtemp(join(tmpdir(), 'atelier-pack-'));
      const tarballs: Record<string, string> = {};
      for (const name of ['mcp', 'client']) {
        const destination = join(work, `tarball-${name}`);
        await mkdir(destination);
        await run('npm', ['pack', '--silent', '--pack-destination', destination], {
          cwd: join(repoRoot, 'packages', name),
        });
        tarballs[name] = join(destination, (await readdir(destination))[0] ?? '');
      }
      mcpApp = await emptyFolder(work, 'mcp-app');
      const emptyCache = join(work, 'empty-npm-cache');
      await run('npm', ['install', '--offline', '--cache', emptyCache, ...npmQuiet, tarballs.mcp ?? ''], {
        cwd: mcpApp,
      });
      clientApp = await emptyFolder(work, 'client-app');
      await run('npm', ['install', '--prefer-offline', ...npmQuiet, tarballs.client ?? ''], {
        cwd: clientApp,
      });
      [node22, node20] = [await nodeOfLine(22), await nodeOfLine(20)];
      atelier = await startTestServer({ tier: 'pro' });
      // The source server, in this process, with the same key: what the installed one must offer.
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const source = createAtelierClient({ baseUrl: atelier.baseUrl, apiKey: atelier.apiKey });
      await createServer(source, { taskIdSeal: apiKeyTaskIdSeal(atelier.apiKey) }).connect(serverSide);
      reference = new Client({ name: 'pack-test-reference', version: '1.0.0' });
      await reference.connect(clientSide);
      // Two packs (a bundle, a compile), two installs, and a Node.js line fetched once: minutes under load.
    },
    { timeout: 600_000 },
  );
  after(async () => {
    await reference?.close();
    await atelier?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  function installedServer(node: string): StdioClientTransport {
    return new StdioClientTransport({
      command: node,
      args: [join(mcpApp, 'node_modules', '.bin', 'atelier-mcp')],
      cwd: mcpApp,
      env: { ATELIER_API_KEY: atelier.apiKey, ATELIER_BASE_URL: atelier.baseUrl },
      stderr: 'pipe',
    });
  }

  it('installs offline from its tarball alone: no dependency, no native module, under 5 MB', async () => {
    const lock = JSON.parse(await readFile(join(mcpApp, 'node_modules', '.package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    assert.deepEqual(Object.keys(lock.packages), ['node_modules/@atelier/mcp']);
    const bytes = await bytesUnder(join(mcpApp, 'node_modules'));
    assert.ok(bytes < 5_000_000, `${bytes} bytes installed`);
    const manifest = JSON.parse(
      await readFile(join(mcpApp, 'node_modules/@atelier/mcp/package.json'), 'utf8'),
    );
    assert.equal(manifest.dependencies, undefined);
    const { stdout } = await run('find', [mcpApp, clientApp, '-name', '*.node']);
    assert.equal(stdout.trim(), '');
    const clientInstalled = await readdir(join(clientApp, 'node_modules'));
    for (const name of ['sharp', 'better-sqlite3', 'pg', 'fastify', 'typescript', 'tsx']) {
      assert.ok(!clientInstalled.includes(name), `${name} was installed`);
    }
  });

  it('on Node.js 22 the installed atelier-mcp offers what the source offers and generates with links', async () => {
    const client = new Client({ name: 'pack-test', version: '1.0.0' });
    await client.connect(installedServer(node22));
    try {
      const installed = await offer(client);
      assert.deepEqual(installed, await offer(reference));
      assert.ok(installed.tools.some((tool) => tool.name === 'generate_image'));
      // App pages (ui:// resources) are in the bundle, not files beside the source.
      for (const { uri } of installed.resources.filter((resource) => resource.uri.startsWith('ui://'))) {
        assert.deepEqual(await client.readResource({ uri }), wire(await reference.readResource({ uri })));
      }
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

  it('on the running Node.js the installed atelier-mcp lists the same tools', async (t) => {
    if (process.execPath === node22) return t.skip('the running Node.js is the 22 above');
    const client = new Client({ name: 'pack-test', version: '1.0.0' });
    await client.connect(installedServer(process.execPath));
    try {
      assert.deepEqual((await client.listTools()).tools, wire((await reference.listTools()).tools));
    } finally {
      await client.close();
    }
  });

  it('on Node.js 20 it refuses to start: the version it needs, how to get it, exit code 1, nothing on stdout', async () => {
    const manifest = JSON.parse(await readFile(join(repoRoot, 'packages/mcp/package.json'), 'utf8'));
    const minimum = /^>=(\d+\.\d+)\.0$/.exec(manifest.engines.node)?.[1];
    assert.equal(minimum, '22.12', `engines ${manifest.engines.node}: the bin's MINIMUM must follow it`);
    const child = spawn(node20, [join(mcpApp, 'node_modules', '.bin', 'atelier-mcp')], {
      cwd: mcpApp,
      env: { PATH: process.env.PATH, ATELIER_API_KEY: atelier.apiKey, ATELIER_BASE_URL: atelier.baseUrl },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    const version = (await run(node20, ['--version'])).stdout.trim();
    assert.equal(code, 1);
    assert.equal(stdout, '');
    // The check runs before the bundle is imported: its message is all there is, no warning or trace.
    assert.ok(
      stderr.startsWith(`atelier-mcp needs Node.js ${minimum} or newer (this is ${version}, `),
      stderr,
    );
    assert.match(stderr, /https:\/\/nodejs\.org\//);
    assert.doesNotMatch(stderr, /Warning|Error|\n\s+at /);
  });

  it('the installed @atelier/client is importable and typed calls work', async () => {
    const script = join(clientApp, 'status.mjs');
    await writeFile(
      script,
      `import { createAtelierClient } from '@atelier/client';
const client = createAtelierClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
const status = await client.userStatus();
process.stdout.write(JSON.stringify(status));`,
    );
    const { stdout } = await run(process.execPath, [script], {
      cwd: clientApp,
      env: { ...process.env, BASE: atelier.baseUrl, KEY: atelier.apiKey },
    });
    const status = JSON.parse(stdout) as { email: string; tier: string };
    assert.equal(status.email, atelier.email);
    assert.equal(status.tier, 'pro');
  });
});
