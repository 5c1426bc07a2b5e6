import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import sharp from 'sharp';
import { systemClock } from '../../src/base/runtime/clock.js';
import { readFalEndpoints } from '../../src/capabilities/providers/catalog-blocks.js';
import { createFalProvider } from '../../src/capabilities/providers/fal-provider.js';
import {
  createProviderRegistry,
  type ProviderRegistry,
} from '../../src/capabilities/providers/provider-registry.js';
import { catalogCheckCommand } from '../../src/edges/cli/catalog-command.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { type FakeFal, startFakeFal } from '../fakes/providers/fake-fal.js';
import { call, startMcp, textOf } from '../fakes/stdio-session.js';
import { bearer, makePng, pollUntilFinal, submitGenerate } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

const KEY = 'fal-key-0123456789:abcdef';
const METRICS_TOKEN = 'metrics-token-0123456789';
const CATALOG = new URL('../../catalogs/fal.json', import.meta.url).pathname;
const ENDPOINTS = Object.entries(
  (JSON.parse(readFileSync(CATALOG, 'utf8')) as { falEndpoints: Record<string, { editEndpoint?: string }> })
    .falEndpoints,
).flatMap(([endpoint, shape]) => [endpoint, ...(shape.editEndpoint ? [shape.editEndpoint] : [])]);

// The shipped fal catalog against a loopback fal queue (positions, logs, results on its "CDN").
describe('fal queue API upstream', () => {
  let t: TestApp;
  let fal: FakeFal;
  let origin: Server;
  let referenceUrl: string;
  let apiKey: string;

  before(async () => {
    fal = await startFakeFal({ apiKey: KEY, endpoints: ENDPOINTS });
    const png = await makePng(300, 200);
    origin = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const { port } = origin.address() as AddressInfo;
    referenceUrl = `http://127.0.0.1:${port}/ref.png`;
    const falPort = new URL(fal.baseUrl).port;
    const env = {
      ATELIER_CATALOG: CATALOG,
      ATELIER_FAL_API_KEY: KEY,
      ATELIER_FAL_BASE_URL: fal.baseUrl,
      ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${port},127.0.0.1:${falPort}`,
      ATELIER_METRICS_TOKEN: METRICS_TOKEN,
    };
    // The registry as the server builds it, with fal polled every 20 ms (the default backs off to 5 s).
    const registry = createProviderRegistry({ config: loadConfig(env), clock: systemClock });
    const quick = createFalProvider({
      baseUrl: fal.baseUrl,
      endpoints: readFalEndpoints(CATALOG),
      pollIntervalMs: 20,
    });
    const providers: ProviderRegistry = {
      ...registry,
      get: (name) => (name === 'fal' ? quick : registry.get(name)),
    };
    t = await createTestApp({ listen: true, env, overrides: { providers } });
    ({ apiKey } = await t.createAccount());
  });
  after(async () => {
    await t?.close();
    await fal?.close();
    await new Promise((resolve) => origin?.close(resolve));
  });

  const start = async (payload: Record<string, unknown>) =>
    String((await submitGenerate(t.app, apiKey, payload))[0]);
  const generate = async (payload: Record<string, unknown>) => {
    const taskId = await start(payload);
    return { taskId, ...(await pollUntilFinal(t.app, apiKey, taskId, 60_000)) };
  };
  const fileAt = async (url: string) =>
    (await t.app.inject({ method: 'GET', url: new URL(url).pathname })).rawPayload;

  test('text: submitted with the key, queue position then logs move the progress, the result is copied', async () => {
    // fal's queue moves only once the record has shown the current place (fal's 0 = the record's 1).
    const shown = new Set<number>();
    fal.queueMoves = (job) => shown.has(job.position + 1);
    const id = await start({ prompt: 'a lighthouse', model: 'flux-dev', aspect: '16:9' });
    const { final, seen } = await pollUntilFinal(t.app, apiKey, id, 60_000, (record) => {
      const place = (record as { queue_position?: number }).queue_position;
      if (place !== undefined) shown.add(place);
    });
    fal.queueMoves = undefined;
    assert.equal(final.status, 'completed', JSON.stringify(final));
    const job = fal.jobs.at(-1);
    assert.equal(job?.endpoint, 'fal-ai/flux/dev');
    assert.equal(job?.input.image_size, 'landscape_16_9');
    assert.equal(job?.input.num_images, 1);
    assert.equal(typeof job?.input.seed, 'number');
    assert.equal(fal.requests[0]?.headers.authorization, `Key ${KEY}`);
    // Status reads dropped the endpoint's sub-path, as fal's status_url does.
    assert.ok(
      fal.requests.some(
        (r) => r.path === `/fal-ai/flux/requests/${job?.id}/status` && r.query.get('logs') === '1',
      ),
    );
    const progress = seen.filter((r) => r.status !== 'completed').map((r) => r.progress);
    assert.ok(new Set(progress).size >= 3, `progress moved: ${progress.join(', ')}`);
    assert.ok(
      seen.some((r) => r.status === 'queued' && r.progress > 0),
      'the queue position shows while queued',
    );
    // fal's place (0 = next) is the task's wait in the record (1 = next), falling as fal says; gone once it runs.
    const waits = seen as Array<(typeof seen)[number] & { waiting_for?: string; queue_position?: number }>;
    const places = waits.filter((r) => r.waiting_for === 'upstream_queue').map((r) => r.queue_position);
    assert.ok(
      places.length >= 2 && places.every((p) => typeof p === 'number'),
      `places: ${places.join(', ')}`,
    );
    assert.ok(
      places.every((p, i) => i === 0 || (p as number) <= (places[i - 1] as number)) &&
        new Set(places).size >= 2,
      `the place falls: ${places.join(', ')}`,
    );
    assert.ok(
      waits.filter((r) => r.status !== 'queued').every((r) => r.waiting_for === undefined),
      'no wait once it runs',
    );
    assert.ok(
      fal.requests.some((r) => r.path.startsWith('/files/')),
      'the image was copied from the CDN',
    );
    // Cost from the catalog's published fal price; the calls are measured under the provider's name.
    const record = await t.app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${final.task_id}`,
      headers: bearer(apiKey),
    });
    assert.deepEqual(record.json().cost, { amount_micros: 25000, currency: 'USD', source: 'catalog_price' });
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) });
    assert.match(
      metrics.body,
      /atelier_upstream_call_duration_seconds_count\{provider="fal",phase="poll",outcome="ok",cause=""\} \d+/,
    );
  });

  test('fal goes away mid-task (status reads cut off): the polls are retried and the task completes', async () => {
    fal.dropStatusReads(2);
    const { final } = await generate({ prompt: 'through the storm', model: 'flux-dev' });
    assert.equal(final.status, 'completed', JSON.stringify(final));
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) });
    assert.match(
      metrics.body,
      /atelier_upstream_call_duration_seconds_count\{provider="fal",phase="poll",outcome="retry",cause="network"\} 2/,
    );
  });

  test("catalog check asks fal's model search for every endpoint of the catalog", async () => {
    const lines: string[] = [];
    const config = loadConfig({
      ATELIER_CATALOG: CATALOG,
      ATELIER_FAL_API_KEY: KEY,
      ATELIER_FAL_BASE_URL: fal.baseUrl,
    });
    assert.equal(await catalogCheckCommand(config, [], (line) => lines.push(line)), 0, lines.join('\n'));
    assert.ok(lines.includes('fal fal-ai/flux/dev [flash]: ok; upstream: present'), lines.join('\n'));
    assert.equal(lines.at(-1), 'No problems found.');
    const search = fal.requests.find((r) => r.path === '/v1/models');
    assert.equal(search?.headers.authorization, `Key ${KEY}`);
    // The four models' endpoints and the two action routes' (the upscaler, the background remover).
    assert.deepEqual(search?.query.getAll('endpoint_id').slice(-2), [
      'fal-ai/clarity-upscaler',
      'fal-ai/ben/v2/image',
    ]);
    assert.equal(search?.query.getAll('endpoint_id').length, 6);
  });

  test('edit (one image_url) and fusion (image_urls with aspect_ratio and resolution)', async () => {
    const edit = await generate({
      prompt: 'at night',
      model: 'base-image-2',
      mode: 'edit',
      imageUrls: [referenceUrl],
    });
    assert.equal(edit.final.status, 'completed', JSON.stringify(edit.final));
    const kontext = fal.jobs.at(-1);
    assert.equal(kontext?.endpoint, 'fal-ai/flux-pro/kontext');
    assert.match(String(kontext?.input.image_url), /^data:image\/(png|jpeg|webp);base64,/);
    assert.equal(kontext?.input.aspect_ratio, undefined, 'the reference keeps its shape');
    const fusion = await generate({
      prompt: 'both',
      model: 'pro',
      mode: 'fusion',
      aspect: '3:2',
      imageSize: '2K',
      imageUrls: [referenceUrl, referenceUrl],
    });
    assert.equal(fusion.final.status, 'completed', JSON.stringify(fusion.final));
    const banana = fal.jobs.at(-1);
    assert.equal(banana?.endpoint, 'fal-ai/nano-banana-pro/edit');
    assert.equal((banana?.input.image_urls as string[] | undefined)?.length, 2);
    assert.equal(banana?.input.aspect_ratio, '3:2');
    assert.equal(banana?.input.resolution, '2K');
  });

  test('/v1/images with the openai client', async () => {
    const client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey });
    const answer = await client.images.generate({ model: 'flux-dev', prompt: 'a fox', size: '1024x1024' });
    assert.ok(answer.data?.[0]?.url || answer.data?.[0]?.b64_json);
    assert.equal(fal.jobs.at(-1)?.input.image_size, 'square_hd');
  });

  test('MCP generate_image waits for a fal image; progress moves; a refusal is a tool error', async () => {
    const mcp = await startMcp({ ATELIER_API_KEY: apiKey, ATELIER_BASE_URL: t.baseUrl });
    try {
      const progress: number[] = [];
      // Held in fal's queue until the tool has reported the wait, then let run.
      fal.script({ kind: 'stall' });
      const pending = mcp.client.callTool(
        { name: 'generate_image', arguments: { prompt: 'a harbour', model: 'flux-dev', wait: 60 } },
        undefined,
        { onprogress: (p) => progress.push(p.progress), timeout: 90_000 },
      );
      while (!progress.some((p) => p > 0 && p < 100)) await new Promise((resolve) => setTimeout(resolve, 20));
      fal.release();
      const result = await pending;
      assert.equal(result.isError, undefined, JSON.stringify(result));
      const structured = result.structuredContent as { tasks: Array<{ status: string; provider?: string }> };
      assert.equal(structured.tasks[0]?.status, 'completed');
      assert.equal(fal.jobs.at(-1)?.input.prompt, 'a harbour');
      assert.ok(new Set(progress).size >= 3, `progress: ${progress.join(', ')}`);
      fal.script({ kind: 'refuse', status: 403, json: { detail: 'Forbidden' } });
      const refused = await call(mcp, 'generate_image', { prompt: 'no', model: 'flux-dev' });
      assert.equal(refused.isError, true);
      assert.match(
        textOf(refused),
        /fal: the upstream key is not allowed to use this model or service \(HTTP 403\)/,
      );
    } finally {
      await mcp.close();
    }
  });

  test('cancel: the queued fal request is cancelled upstream', async () => {
    fal.script({ kind: 'stall' });
    const taskId = await start({ prompt: 'stalled', model: 'flux-dev' });
    const job = () => fal.jobs.find((one) => one.input.prompt === 'stalled');
    while (!job() || (job()?.statusReads ?? 0) < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    const cancel = await t.app.inject({
      method: 'POST',
      url: `/api/v1/tasks/${taskId}/cancel`,
      headers: bearer(apiKey),
    });
    assert.equal(cancel.statusCode, 200, cancel.body);
    while (!fal.cancels.includes(String(job()?.id))) await new Promise((resolve) => setTimeout(resolve, 20));
    fal.release();
    const { final } = await pollUntilFinal(t.app, apiKey, taskId);
    assert.equal(final.status, 'failed');
  });

  test("a runner error fails the task with fal's error type; a refused input names it", async () => {
    fal.script({ kind: 'fail_when_done', message: 'CUDA out of memory', type: 'runner_out_of_memory' });
    const failed = await generate({ prompt: 'too big', model: 'flux-dev' });
    assert.equal(failed.final.status, 'failed');
    assert.match(
      String(failed.final.error),
      /^fal: request [\w-]+ failed while running \(fal error runner_out_of_memory\)$/,
    );
    fal.script({
      kind: 'refuse',
      status: 422,
      json: { detail: [{ loc: ['body', 'image_size'], msg: 'bad', type: 'value_error' }] },
    });
    // The submit is quick, so the generate request makes it inline and answers the refusal at once.
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'odd', model: 'flux-dev' },
    });
    assert.equal(refused.statusCode, 500);
    assert.equal(
      refused.json().error.message,
      "Upstream provider error: fal: the upstream refused input image_size; check the catalog's falEndpoints entry against the endpoint's inputs (HTTP 422)",
    );
  });

  test('actions on fal: the upscaler gets the image and upscale_factor and answers ×2 the pixels; the remover a transparent PNG; a seed is sent', async () => {
    const made = await generate({
      prompt: 'a teapot on a table',
      model: 'flux-dev',
      aspect: '3:2',
      seed: 99,
    });
    assert.equal(made.final.status, 'completed', JSON.stringify(made.final));
    assert.equal(fal.jobs.at(-1)?.input.seed, 99);
    const source = await sharp(await fileAt(made.final.imageUrl ?? '')).metadata();
    const act = async (payload: Record<string, unknown>) => {
      const answer = await t.app.inject({
        method: 'POST',
        url: `/api/v1/generations/${made.taskId}/actions`,
        headers: bearer(apiKey),
        payload,
      });
      assert.equal(answer.statusCode, 200, answer.body);
      const { final } = await pollUntilFinal(t.app, apiKey, answer.json().task_ids[0], 60_000);
      assert.equal(final.status, 'completed', JSON.stringify(final));
      return { job: fal.jobs.at(-1), bytes: await fileAt(final.imageUrl ?? '') };
    };
    const upscaled = await act({ action: 'upscale' });
    assert.equal(upscaled.job?.endpoint, 'fal-ai/clarity-upscaler');
    assert.equal(upscaled.job?.input.upscale_factor, 2);
    assert.match(String(upscaled.job?.input.image_url), /^(https?:|data:image\/png;base64,)/);
    const meta = await sharp(upscaled.bytes).metadata();
    assert.deepEqual([meta.width, meta.height], [(source.width ?? 0) * 2, (source.height ?? 0) * 2]);
    const cut = await act({ action: 'remove_background' });
    assert.match(String(cut.job?.endpoint), /^fal-ai\/ben/);
    const { data } = await sharp(cut.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    let clear = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] === 0) clear++;
    assert.ok(clear > 0, 'the background is transparent');
  });

  test('a 429 waits in the upstream-aware queue, then the task completes', async () => {
    fal.script({
      kind: 'refuse',
      status: 429,
      json: { detail: 'Too many concurrent requests' },
      headers: { 'retry-after': '1' },
    });
    const { final } = await generate({ prompt: 'later', model: 'flux-dev' });
    assert.equal(final.status, 'completed', JSON.stringify(final));
  });
});
