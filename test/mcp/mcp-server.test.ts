// End to end: the real MCP server process over stdio (the SDK's own client and transport) against the
// real Atelier app on a free port, with the offline renderer.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import {
  type HistoryPage,
  isFinalStatus,
  type TaskRecord,
  type UploadResult,
} from '../../src/edges/client/atelier-client.js';
import { call, type McpSession, mainArgs, startMcp, textOf } from '../fakes/stdio-session.js';
import { startTestServer } from '../support/test-server.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const ONE_MB = 1024 * 1024;

function imagesOf(result: CallToolResult): Array<{ data: string; mimeType: string }> {
  return result.content.filter((block) => block.type === 'image') as Array<{
    data: string;
    mimeType: string;
  }>;
}

async function assertThumbnail(image: { data: string; mimeType: string }): Promise<void> {
  assert.ok(['image/jpeg', 'image/webp'].includes(image.mimeType), image.mimeType);
  const meta = await sharp(Buffer.from(image.data, 'base64')).metadata();
  assert.ok((meta.width ?? 0) <= 512 && (meta.height ?? 0) <= 512, `${meta.width}x${meta.height}`);
}

describe('Atelier MCP server over stdio', () => {
  let atelier: Awaited<ReturnType<typeof startTestServer>>;
  let mcp: McpSession;
  let workDir = '';
  let imageHostUrl = '';
  const imageHost = createServer(async (req, res) => {
    if (req.url === '/ref.png') {
      const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#3366cc' } })
        .png()
        .toBuffer();
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    } else if (req.url === '/notes.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('these are not pixels');
    } else {
      res.writeHead(404).end();
    }
  });

  before(async () => {
    await new Promise<void>((resolve) => imageHost.listen(0, '127.0.0.1', resolve));
    const hostPort = (imageHost.address() as AddressInfo).port;
    imageHostUrl = `http://127.0.0.1:${hostPort}`;
    // Uploads refuse loopback sources unless allowed; this host stands in for "a public URL".
    atelier = await startTestServer({ env: { ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${hostPort}` } });
    workDir = await mkdtemp(join(tmpdir(), 'atelier-mcp-e2e-'));
    mcp = await startMcp({ ATELIER_API_KEY: atelier.apiKey, ATELIER_BASE_URL: atelier.baseUrl });
  });

  after(async () => {
    await mcp?.close();
    await atelier?.close();
    await new Promise<void>((resolve) => imageHost.close(() => resolve()));
    await rm(workDir, { recursive: true, force: true });
  });

  it('lists exactly the eleven tools with described input schemas, output schemas, annotations and icons', async () => {
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const names = 'act_on_image batch_get_tasks generate_image get_account_status get_task list_models';
    const more = 'list_my_generations list_versions quote_image refine_image upload_reference_image';
    assert.deepEqual([...byName.keys()].sort(), `${names} ${more}`.split(' '));
    const generateInputs = 'prompt model mode aspect quality imageSize count seed imageUrls quote_id wait';
    const expectedInputs: Record<string, string[]> = {
      generate_image: generateInputs.split(' '),
      get_task: ['task_id'],
      batch_get_tasks: ['task_ids'],
      upload_reference_image: ['source_url', 'path'],
      list_my_generations: ['page', 'limit'],
      get_account_status: [],
      quote_image: 'prompt model mode aspect quality imageSize count seed imageUrls work_id'.split(' '),
      refine_image: 'work_id instruction model aspect quality imageSize seed quote_id wait'.split(' '),
      act_on_image: 'id action scale strength factor aspect seed count model wait'.split(' '),
      list_versions: ['work_id'],
      list_models: ['model'],
    };
    for (const [name, fields] of Object.entries(expectedInputs)) {
      const tool = byName.get(name);
      assert.ok(tool, name);
      assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), [...fields].sort(), name);
      for (const field of fields) {
        const property = tool.inputSchema.properties?.[field] as { description?: string } | undefined;
        assert.ok(property?.description, `${name}.${field} has a description`);
      }
      assert.equal(tool.outputSchema?.type, 'object', name);
      assert.ok(tool.description, name);
      assert.equal(tool.icons?.[0]?.mimeType, 'image/svg+xml', name);
    }
    const generate = byName.get('generate_image');
    assert.match(JSON.stringify(generate?.inputSchema), /list_models.*2-5 s/);
    assert.deepEqual(generate?.inputSchema.required, ['prompt']);
    const batch = byName.get('batch_get_tasks')?.inputSchema.properties?.task_ids as { maxItems?: number };
    assert.equal(batch.maxItems, 20);
    const creating = ['generate_image', 'refine_image', 'act_on_image', 'upload_reference_image']; // the rest only read
    for (const [name, tool] of byName)
      assert.equal(tool.annotations?.readOnlyHint, !creating.includes(name), name);
    assert.match(mcp.stderr(), /serving http:\/\/127\.0\.0\.1:\d+ over stdio/);
  });

  it('get_account_status answers the account of the key', async () => {
    const result = await call(mcp, 'get_account_status');
    assert.equal(result.isError, undefined);
    const spend_confirmation = { above_micros: 500_000, api_keys: false, sign_in: true }; // the defaults
    const status = { email: atelier.email, tier: 'standard', has_key: true, spend_confirmation };
    assert.deepEqual(result.structuredContent, status);
  });

  it('generate_image with wait returns completed images with thumbnails in one call, under 1 MB', async () => {
    const progress: Progress[] = [];
    const result = (await mcp.client.callTool(
      {
        name: 'generate_image',
        arguments: { prompt: 'a lighthouse at dusk', count: 2, aspect: '16:9', wait: 60 },
      },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: 90_000 },
    )) as CallToolResult;
    assert.equal(result.isError, undefined, textOf(result));
    const structured = result.structuredContent as {
      task_ids: string[];
      tasks: TaskRecord[];
      finished: boolean;
    };
    assert.equal(structured.task_ids.length, 2);
    assert.equal(structured.finished, true);
    assert.deepEqual(
      structured.tasks.map((task) => task.task_id),
      structured.task_ids,
    );
    for (const task of structured.tasks) {
      assert.equal(task.status, 'completed');
      assert.ok(task.imageUrl?.startsWith(`${atelier.baseUrl}/files/`), task.imageUrl);
    }
    const images = imagesOf(result);
    assert.equal(images.length, 2);
    for (const image of images) await assertThumbnail(image);
    assert.ok(JSON.stringify(result).length < ONE_MB, `result is ${JSON.stringify(result).length} bytes`);

    assert.ok(progress.length >= 2, 'progress notifications were sent');
    assert.equal(progress[0]?.progress, 0);
    assert.equal(progress.at(-1)?.progress, 100);
    for (let i = 1; i < progress.length; i++) {
      assert.ok((progress[i]?.progress ?? 0) > (progress[i - 1]?.progress ?? 0), 'progress increases');
    }
  });

  it('generate_image without wait answers the task ids and a polling hint; get_task follows one', async () => {
    const submitted = await call(mcp, 'generate_image', { prompt: 'a paper boat' });
    assert.equal(submitted.isError, undefined, textOf(submitted));
    const { task_ids, hint } = submitted.structuredContent as { task_ids: string[]; hint: string };
    assert.equal(task_ids.length, 1);
    assert.match(hint, /batch_get_tasks/);
    assert.equal(imagesOf(submitted).length, 0);

    const taskId = task_ids[0] as string;
    let record: TaskRecord | undefined;
    let result: CallToolResult | undefined;
    for (let attempt = 0; attempt < 15; attempt++) {
      result = await call(mcp, 'get_task', { task_id: taskId });
      assert.equal(result.isError, undefined, textOf(result));
      record = result.structuredContent as TaskRecord;
      if (isFinalStatus(record.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    assert.equal(record?.task_id, taskId);
    assert.equal(record?.status, 'completed');
    assert.equal(imagesOf(result as CallToolResult).length, 1);
  });

  it('generate_image reports API refusals as tool errors with their type and message', async () => {
    const fusion = await call(mcp, 'generate_image', { prompt: 'blend', model: 'flash', mode: 'fusion' });
    assert.equal(fusion.isError, true);
    assert.match(textOf(fusion), /^invalid_request \(HTTP 400\): .*model flash does not support mode fusion/);

    const upstream = await call(mcp, 'generate_image', { prompt: 'boom [[upstream_error]]' });
    assert.equal(upstream.isError, true);
    assert.match(textOf(upstream), /^upstream_error \(HTTP 500\)/);
  });

  it('generate_image returns a failed task as data, not as a tool error', async () => {
    const result = await call(mcp, 'generate_image', { prompt: 'doomed [[fail]]', wait: 30 });
    assert.equal(result.isError, undefined, textOf(result));
    const { tasks, finished, hint } = result.structuredContent as {
      tasks: TaskRecord[];
      finished: boolean;
      hint: string;
    };
    assert.equal(finished, true);
    assert.equal(tasks[0]?.status, 'failed');
    assert.ok(tasks[0]?.error);
    assert.match(hint, /1 failed/);
    assert.equal(imagesOf(result).length, 0);
  });

  it('get_task answers not_found for an unknown id', async () => {
    const result = await call(mcp, 'get_task', { task_id: 'tsk_doesnotexist' });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^not_found \(HTTP 404\)/);
  });

  it('batch_get_tasks keeps the order of the ids, duplicates and unknown ids included', async () => {
    const generated = await call(mcp, 'generate_image', { prompt: 'three pears', count: 2, wait: 30 });
    const [first, second] = (generated.structuredContent as { task_ids: string[] }).task_ids as [
      string,
      string,
    ];
    const ids = [second, 'tsk_unknown', first, second];
    const result = await call(mcp, 'batch_get_tasks', { task_ids: ids });
    assert.equal(result.isError, undefined, textOf(result));
    const { tasks } = result.structuredContent as { tasks: TaskRecord[] };
    assert.deepEqual(
      tasks.map((task) => task.task_id),
      ids,
    );
    assert.equal(tasks[1]?.status, 'failed');
    assert.equal(tasks[1]?.error, 'Task not found');
    assert.equal(tasks[0]?.status, 'completed');
    // One thumbnail per completed task: the duplicate id is not previewed twice.
    assert.equal(imagesOf(result).length, 2);
    assert.ok(JSON.stringify(result).length < ONE_MB);
  });

  it('batch_get_tasks refuses more than 20 ids', async () => {
    const ids = Array.from({ length: 21 }, (_, i) => `tsk_${i}`);
    const result = await call(mcp, 'batch_get_tasks', { task_ids: ids });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /task_ids/);
  });

  it('upload_reference_image re-hosts a source_url and a local path, and the result works as an edit reference', async () => {
    const byUrl = await call(mcp, 'upload_reference_image', { source_url: `${imageHostUrl}/ref.png` });
    assert.equal(byUrl.isError, undefined, textOf(byUrl));
    const uploaded = byUrl.structuredContent as UploadResult;
    assert.equal(uploaded.content_type, 'image/png');
    assert.ok(uploaded.bytes > 0);
    assert.ok(uploaded.url.startsWith('http'));

    // A JPEG saved under a misleading extension: the type comes from the bytes.
    const file = join(workDir, 'photo.png');
    await writeFile(
      file,
      await sharp({ create: { width: 300, height: 300, channels: 3, background: '#aa2222' } })
        .jpeg()
        .toBuffer(),
    );
    const byPath = await call(mcp, 'upload_reference_image', { path: file });
    assert.equal(byPath.isError, undefined, textOf(byPath));
    const local = byPath.structuredContent as UploadResult;
    assert.equal(local.content_type, 'image/jpeg');

    const edit = await call(mcp, 'generate_image', {
      prompt: 'make it night',
      mode: 'edit',
      imageUrls: [local.url],
      wait: 30,
    });
    assert.equal(edit.isError, undefined, textOf(edit));
    const { tasks } = edit.structuredContent as { tasks: TaskRecord[] };
    assert.equal(tasks[0]?.status, 'completed');
  });

  it('upload_reference_image reports unsupported files, locally and from the API', async () => {
    const file = join(workDir, 'notes.png');
    await writeFile(file, 'these are not pixels');
    const local = await call(mcp, 'upload_reference_image', { path: file });
    assert.equal(local.isError, true);
    assert.match(textOf(local), /^unsupported_media_type: /);

    const remote = await call(mcp, 'upload_reference_image', { source_url: `${imageHostUrl}/notes.txt` });
    assert.equal(remote.isError, true);
    assert.match(textOf(remote), /^unsupported_media_type \(HTTP 415\)/);

    const badScheme = await call(mcp, 'upload_reference_image', { source_url: 'ftp://example.com/a.png' });
    assert.equal(badScheme.isError, true);
    assert.match(textOf(badScheme), /^invalid_request \(HTTP 400\)/);
  });

  it('list_my_generations pages through the history, newest first', async () => {
    const result = await call(mcp, 'list_my_generations', { page: 1, limit: 2 });
    assert.equal(result.isError, undefined, textOf(result));
    const page = result.structuredContent as HistoryPage;
    assert.equal(page.page, 1);
    assert.equal(page.limit, 2);
    assert.equal(page.items.length, 2);
    assert.ok(page.total >= 5, `total ${page.total}`);
    assert.equal(page.total_pages, Math.ceil(page.total / 2));
    assert.ok((page.items[0]?.createdAt ?? 0) >= (page.items[1]?.createdAt ?? 0));

    const tooBig = await call(mcp, 'list_my_generations', { limit: 51 });
    assert.equal(tooBig.isError, true);
    assert.match(textOf(tooBig), /limit/);
  });

  it('a wrong key comes back as invalid_api_key on every tool', async () => {
    const wrong = await startMcp({ ATELIER_API_KEY: 'not-a-real-key', ATELIER_BASE_URL: atelier.baseUrl });
    try {
      for (const [name, args] of [
        ['get_account_status', {}],
        ['list_my_generations', {}],
        ['get_task', { task_id: 'tsk_x' }],
      ] as const) {
        const result = await call(wrong, name, args);
        assert.equal(result.isError, true, name);
        assert.match(
          textOf(result),
          /^invalid_api_key \(HTTP 401\): Invalid API key\n.*ATELIER_API_KEY/,
          name,
        );
      }
    } finally {
      await wrong.close();
    }
  });

  it('bin/atelier mcp, the command of the documented client configuration, serves the same tools', async () => {
    const viaBin = await startMcp(
      { ATELIER_API_KEY: atelier.apiKey, ATELIER_BASE_URL: atelier.baseUrl },
      { command: { command: join(repoRoot, 'bin', 'atelier'), args: ['mcp'] } },
    );
    try {
      const { tools } = await viaBin.client.listTools();
      assert.equal(tools.length, 11);
      const result = await call(viaBin, 'get_account_status');
      assert.equal(result.isError, undefined, textOf(result));
      assert.equal(result.structuredContent?.email, atelier.email);
    } finally {
      await viaBin.close();
    }
  });

  it('an unreachable base URL comes back as connection_failed', async () => {
    const dead = await startMcp({ ATELIER_API_KEY: atelier.apiKey, ATELIER_BASE_URL: 'http://127.0.0.1:9' });
    try {
      const result = await call(dead, 'get_account_status');
      assert.equal(result.isError, true);
      assert.match(textOf(result), /^connection_failed: Cannot reach Atelier at http:\/\/127\.0\.0\.1:9/);
    } finally {
      await dead.close();
    }
  });
});

describe('Atelier MCP server configuration', () => {
  function runWithEnv(
    env: Record<string, string>,
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, mainArgs, {
        cwd: repoRoot,
        // PATH and HOME only: the parent's ATELIER_* variables must not leak in.
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it('exits 1 with a clear message on stderr, and nothing on stdout, when ATELIER_API_KEY is missing', async () => {
    const { code, stdout, stderr } = await runWithEnv({});
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /ATELIER_API_KEY is not set/);
  });

  it('names a bad ATELIER_BASE_URL too', async () => {
    const { code, stdout, stderr } = await runWithEnv({
      ATELIER_API_KEY: 'k',
      ATELIER_BASE_URL: 'ftp://nowhere',
    });
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /ATELIER_BASE_URL: .*must use http or https/);
  });
});
