import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import sharp from 'sharp';
import { catalogCheckCommand } from '../../src/edges/cli/catalog-command.js';
import { loadConfig } from '../../src/infra/config/config.js';
import {
  type FakeCompatibleServer,
  startFakeCompatibleServer,
} from '../fakes/providers/fake-compatible-server.js';
import { startMcp } from '../fakes/stdio-session.js';
import { bearer, makePng, pollUntilFinal, submitGenerate } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

const KEY = 'sk-local-0123456789abcdef';

// Two OpenAI-compatible servers declared in the catalog: one LocalAI-like (a key, `url` answers,
// free sizes, edits, an extra body field), one stable-diffusion.cpp-like (no key, `b64_json`, a
// fixed size list, no edits).
describe('OpenAI-compatible upstreams declared in the catalog', () => {
  let t: TestApp;
  let localai: FakeCompatibleServer;
  let sdcpp: FakeCompatibleServer;
  let gateway: FakeCompatibleServer;
  let origin: Server;
  let referenceUrl: string;
  let apiKey: string;
  let catalogPath: string;

  before(async () => {
    localai = await startFakeCompatibleServer({ models: ['sd-3.5'], apiKey: KEY });
    sdcpp = await startFakeCompatibleServer({
      models: ['sd-turbo'],
      apiKey: null,
      sizes: ['512x512', '768x512', '512x768'],
    });
    gateway = await startFakeCompatibleServer({ models: ['relayed'], apiKey: null, relativeUrls: true });
    const png = await makePng(300, 200);
    origin = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const { port } = origin.address() as AddressInfo;
    referenceUrl = `http://127.0.0.1:${port}/ref.png`;
    catalogPath = join(mkdtempSync(join(tmpdir(), 'catalog-')), 'catalog.json');
    writeFileSync(
      catalogPath,
      JSON.stringify({
        upstreams: {
          localai: {
            kind: 'openai-compatible',
            baseUrl: localai.baseUrl,
            apiKeyEnv: 'LOCALAI_API_KEY',
            response: 'url',
            edits: true,
            extraBody: { step: 20 },
          },
          gateway: { kind: 'openai-compatible', baseUrl: gateway.baseUrl, response: 'url' },
          sdcpp: {
            kind: 'openai-compatible',
            baseUrl: `${sdcpp.baseUrl}/v1`,
            sizes: ['512x512', '768x512', '512x768'],
          },
        },
        models: [
          {
            id: 'base-image-2',
            provider: 'localai',
            upstreamModel: 'sd-3.5',
            modes: ['text', 'edit', 'fusion'],
            sizes: ['1K'],
          },
          {
            id: 'turbo',
            provider: 'sdcpp',
            upstreamModel: 'sd-turbo',
            modes: ['text'],
            sizes: ['1K'],
            aspects: ['1:1', '3:2'],
          },
          { id: 'relay', provider: 'gateway', upstreamModel: 'relayed', modes: ['text'], sizes: ['1K'] },
          { id: 'gone', provider: 'sdcpp', upstreamModel: 'sd-gone', modes: ['text'], sizes: ['1K'] },
          {
            id: 'steady',
            provider: 'sdcpp',
            upstreamModel: 'sd-turbo',
            modes: ['text'],
            sizes: ['1K'],
            fallbacks: [{ provider: 'localai', upstreamModel: 'sd-3.5' }],
          },
        ],
      }),
    );
    t = await createTestApp({
      listen: true,
      env: {
        ATELIER_CATALOG: catalogPath,
        LOCALAI_API_KEY: KEY,
        ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${port}`,
      },
    });
    ({ apiKey } = await t.createAccount());
  });
  after(async () => {
    await t?.close();
    await localai?.close();
    await sdcpp?.close();
    await gateway?.close();
    await new Promise((resolve) => origin?.close(resolve));
  });

  const generate = async (payload: Record<string, unknown>) => {
    const [taskId] = await submitGenerate(t.app, apiKey, payload);
    return (await pollUntilFinal(t.app, apiKey, String(taskId), 60_000)).final;
  };

  test('text on a server answering `url`: its key, its quirks, the image copied from its host', async () => {
    const final = await generate({ prompt: 'a lighthouse', aspect: '16:9' });
    assert.equal(final.status, 'completed', JSON.stringify(final));
    const call = localai.calls.at(-1);
    assert.deepEqual(call?.params, {
      model: 'sd-3.5',
      prompt: 'a lighthouse',
      n: 1,
      size: '1360x768',
      response_format: 'url',
      step: 20,
    });
    assert.ok(
      localai.requests.some((r) => r.path.startsWith('/generated-images/')),
      'the url was fetched',
    );
    assert.equal((final as { provider?: string }).provider, 'localai');
    const file = await fetch(String(final.imageUrl));
    const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
    assert.equal(meta.width, 170);
  });

  test('a `url` answer that is a path on the server is read from that server', async () => {
    const final = await generate({ prompt: 'relayed', model: 'relay' });
    assert.equal(final.status, 'completed', JSON.stringify(final));
    assert.ok(gateway.requests.some((r) => r.path === '/generated-images/img1.png'));
  });

  test('edit and fusion go to /v1/images/edits with every reference', async () => {
    const edit = await generate({ prompt: 'at night', mode: 'edit', imageUrls: [referenceUrl] });
    assert.equal(edit.status, 'completed', JSON.stringify(edit));
    assert.equal(localai.calls.at(-1)?.endpoint, 'edits');
    // No aspect named: the reference's 3:2 shape, at Atelier's pixel count.
    assert.equal(localai.calls.at(-1)?.params.size, '1248x832');
    const fusion = await generate({
      prompt: 'both',
      mode: 'fusion',
      imageUrls: [referenceUrl, referenceUrl],
    });
    assert.equal(fusion.status, 'completed', JSON.stringify(fusion));
    assert.equal(localai.calls.at(-1)?.images, 2);
  });

  test('/v1/images with the openai client on a keyless b64_json server with a fixed size list', async () => {
    const client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey });
    const answer = await client.images.generate({ model: 'turbo', prompt: 'a fox', size: '1536x1024' });
    assert.ok(answer.data?.[0]?.url || answer.data?.[0]?.b64_json);
    const call = sdcpp.calls.at(-1);
    assert.equal(call?.params.size, '768x512');
    assert.equal(call?.params.response_format, 'b64_json');
    assert.equal(sdcpp.requests.at(-1)?.headers.authorization, undefined);
  });

  test('MCP generate_image on a compatible server', async () => {
    const mcp = await startMcp({ ATELIER_API_KEY: apiKey, ATELIER_BASE_URL: t.baseUrl });
    try {
      const result = await mcp.client.callTool(
        { name: 'generate_image', arguments: { prompt: 'a mill', model: 'turbo', wait: 60 } },
        undefined,
        { timeout: 90_000 },
      );
      assert.equal(result.isError, undefined, JSON.stringify(result));
      const structured = result.structuredContent as { tasks: Array<{ status: string }> };
      assert.equal(structured.tasks[0]?.status, 'completed');
      assert.equal(sdcpp.calls.at(-1)?.params.prompt, 'a mill');
      assert.equal(sdcpp.calls.at(-1)?.params.size, '512x512');
    } finally {
      await mcp.close();
    }
  });

  test('an upstream error fails the task with its message; a model the server lacks is named', async () => {
    localai.script({ kind: 'error', status: 400, code: 'content_policy_violation', message: 'no' });
    const refused = await generate({ prompt: 'refused' });
    assert.equal(refused.status, 'failed');
    assert.match(
      String(refused.error),
      /^upstream localai: the request was refused by the safety system.*HTTP 400 content_policy_violation/,
    );
    const gone = await generate({ prompt: 'x', model: 'gone' });
    assert.equal(gone.status, 'failed');
    assert.match(
      String(gone.error),
      /upstream sdcpp: model sd-gone not found upstream \(HTTP 404 model_not_found invalid_request_error\)/,
    );
  });

  test("the model list (the website's picker) names each server; a server error falls back to another", async () => {
    const models = await t.app.inject({ method: 'GET', url: '/api/v1/models', headers: bearer(apiKey) });
    const owners = Object.fromEntries(
      (models.json().data as Array<{ id: string; owned_by: string }>).map((m) => [m.id, m.owned_by]),
    );
    assert.equal(owners['base-image-2'], 'localai');
    assert.equal(owners.turbo, 'sdcpp');
    sdcpp.script({ kind: 'error', status: 503, code: 'server_error', message: 'loading model' });
    const final = await generate({ prompt: 'steady', model: 'steady' });
    assert.equal(final.status, 'completed', JSON.stringify(final));
    assert.equal((final as { provider?: string }).provider, 'localai');
    assert.equal(localai.calls.at(-1)?.params.prompt, 'steady');
  });

  test('a server that goes away mid-call: the task is retried and completes, never lost', async () => {
    const before = localai.calls.length;
    localai.script({ kind: 'close' });
    const final = await generate({ prompt: 'again' });
    assert.equal(final.status, 'completed', JSON.stringify(final));
    assert.equal(localai.calls.length - before, 2);
  });

  test("catalog check reads each server's GET /v1/models and reports the missing model", async () => {
    const lines: string[] = [];
    const config = loadConfig({ ATELIER_CATALOG: catalogPath, LOCALAI_API_KEY: KEY });
    const code = await catalogCheckCommand(config, [], (line) => lines.push(line));
    assert.equal(code, 1);
    assert.ok(
      lines.includes('localai sd-3.5 [base-image-2, steady]: ok; upstream: present'),
      lines.join('\n'),
    );
    assert.ok(lines.includes('sdcpp sd-turbo [turbo, steady]: ok; upstream: present'), lines.join('\n'));
    assert.ok(
      lines.some((line) => /sdcpp sd-gone.*model list does not have it/.test(line)),
      lines.join('\n'),
    );
  });
});
