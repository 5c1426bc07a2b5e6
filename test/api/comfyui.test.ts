import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { checkCatalog } from '../../src/capabilities/catalog/catalog-check.js';
import { type FakeComfyUI, STEPS, startFakeComfyUI } from '../fakes/providers/fake-comfyui.js';
import { call, type McpSession, startMcp } from '../fakes/stdio-session.js';
import { bearer, makePng, pollUntilFinal, submitGenerate } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * ComfyUI behind Atelier: the shipped catalog (catalogs/comfyui.json, its SDXL workflows) as it is,
 * against two loopback ComfyUI servers in one pool — through /api/v1, /v1/images and MCP.
 */
const SHIPPED = fileURLToPath(new URL('../../catalogs/comfyui.json', import.meta.url));

type Task = {
  status: string;
  progress: number;
  error?: string;
  image_url?: string;
  width?: number;
  height?: number;
};

/** Waits (checking every 20 ms) until `check` answers something other than undefined. */
async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up waiting: ${what}`);
}

describe('ComfyUI provider: two servers, the shipped SDXL catalog', () => {
  let t: TestApp;
  let apiKey: string;
  let a: FakeComfyUI;
  let b: FakeComfyUI;

  before(async () => {
    a = await startFakeComfyUI({ manual: true });
    b = await startFakeComfyUI({ manual: true });
    t = await createTestApp({
      listen: true,
      env: {
        ATELIER_CATALOG: SHIPPED,
        ATELIER_COMFYUI_URL: `${a.baseUrl}, ${b.baseUrl}/`,
        ATELIER_COMFYUI_MAX_QUEUE: '2',
        ATELIER_METRICS_TOKEN: 'metrics-token-0123456789',
      },
    });
    ({ apiKey } = await t.createAccount());
  });
  after(async () => {
    await t?.close();
    await a?.close();
    await b?.close();
  });

  const generate = (payload: Record<string, unknown>): Promise<string[]> =>
    submitGenerate(t.app, apiKey, payload);
  const task = async (id: string): Promise<Task> =>
    (
      await t.app.inject({ method: 'GET', url: `/api/v1/tasks/${id}`, headers: bearer(apiKey) })
    ).json() as Task;
  /** The fake whose queue holds the task's prompt, and the prompt. */
  const holder = (taskId: string) =>
    until(async () => {
      const id = await t.core.resources.db
        .selectFrom('tasks')
        .select('upstream_id')
        .where('id', '=', taskId)
        .executeTakeFirst();
      const promptId = id?.upstream_id?.split(':')[1];
      const fake = [a, b].find((f) => f.queued.some((q) => q.id === promptId));
      return fake && promptId ? { fake, promptId } : undefined;
    }, `task ${taskId} queued upstream`);

  test('text: the workflow filled from the request; progress moves with the sampler steps', async () => {
    const [taskId] = await generate({ prompt: 'a lighthouse at dawn', aspect: '16:9' });
    const { fake, promptId } = await holder(String(taskId));
    assert.equal(await fake.waitForRunning(), promptId);
    const queued = fake.queued.find((q) => q.id === promptId);
    const prompt = queued?.prompt ?? {};
    assert.equal(prompt['6']?.inputs.text, 'a lighthouse at dawn');
    assert.equal(prompt['7']?.inputs.text, 'text, watermark, blurry, lowres');
    assert.deepEqual(
      [prompt['5']?.inputs.width, prompt['5']?.inputs.height, prompt['5']?.inputs.batch_size],
      [1360, 768, 1],
    );
    assert.equal(typeof prompt['3']?.inputs.seed, 'number');
    assert.notEqual(prompt['3']?.inputs.seed, 156680208700286, 'the seed is the task’s');
    assert.equal(typeof queued?.clientId, 'string');
    const seen: number[] = [];
    for (let step = 1; step < STEPS; step++) {
      fake.step();
      const wanted = 5 + Math.floor((90 * step) / STEPS);
      const record = await until(async () => {
        const now = await task(String(taskId));
        return now.progress >= wanted ? now : undefined;
      }, `progress ${wanted}`);
      assert.equal(record.status, 'in_progress');
      seen.push(record.progress);
    }
    assert.deepEqual(seen, [27, 50, 72]);
    fake.step();
    const { final } = await pollUntilFinal(t.app, apiKey, String(taskId));
    assert.equal(final.status, 'completed', final.error);
    const image = Buffer.from(await (await fetch(String(final.imageUrl))).arrayBuffer());
    const meta = await sharp(image).metadata();
    assert.deepEqual([meta.width, meta.height], [1360, 768]);
  });

  test('two servers share the load: one prompt each, both run at once', async () => {
    const ids = await generate({ prompt: 'two boats', count: 2 });
    const held = await Promise.all(ids.map((id) => holder(id)));
    assert.notEqual(held[0]?.fake, held[1]?.fake, 'each server took one');
    for (const { fake } of held) {
      await fake.waitForRunning();
      for (let i = 0; i < STEPS; i++) fake.step();
    }
    for (const id of ids) assert.equal((await pollUntilFinal(t.app, apiKey, id)).final.status, 'completed');
  });

  test('cancel: a waiting prompt is deleted from the queue, the running one interrupted', async () => {
    const ids = await generate({ prompt: 'four gulls', count: 4 });
    const held = await Promise.all(ids.map((id) => holder(id)));
    const running = held.find((h) => h.fake.running() === h.promptId);
    const waiting = held.find((h) => h.fake.pending().includes(h.promptId));
    assert.ok(running && waiting, 'one running and one waiting');
    const cancel = (i: number) =>
      t.app.inject({ method: 'POST', url: `/api/v1/tasks/${ids[i]}/cancel`, headers: bearer(apiKey) });
    assert.equal((await cancel(held.indexOf(waiting))).statusCode, 200);
    await until(
      () => (waiting.fake.pending().includes(waiting.promptId) ? undefined : true),
      'deleted from the queue',
    );
    assert.equal((await cancel(held.indexOf(running))).statusCode, 200);
    await until(() => (running.fake.running() === running.promptId ? undefined : true), 'interrupted');
    for (const fake of [a, b]) fake.setManual(false);
    for (const [i, id] of ids.entries()) {
      const { final } = await pollUntilFinal(t.app, apiKey, id);
      const canceled: boolean = held[i] === waiting || held[i] === running;
      assert.equal(final.status, canceled ? 'failed' : 'completed', final.error);
      if (canceled) assert.equal(final.error, 'Canceled');
    }
    for (const fake of [a, b]) fake.setManual(true);
  });

  test('errors carry ComfyUI’s own message: a missing checkpoint (node_errors), an execution_error', async () => {
    const installed = a.checkpoints.splice(0);
    b.checkpoints.splice(0);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'no model' },
    });
    a.checkpoints.push(...installed);
    b.checkpoints.push(...installed);
    // The submit is inline: the refusal is the generate request's own upstream_error.
    assert.equal(refused.statusCode, 500);
    assert.equal(refused.json().error.type, 'upstream_error');
    assert.match(
      refused.json().error.message,
      /ComfyUI: Prompt outputs failed validation; CheckpointLoaderSimple \(node 4\): Value not in list: ckpt_name: 'sd_xl_base_1\.0\.safetensors' not in \[\]/,
    );

    const [oom] = await generate({ prompt: 'too big' });
    const { fake } = await holder(String(oom));
    await fake.waitForRunning();
    fake.step();
    fake.failRunning('torch.OutOfMemoryError', 'CUDA out of memory. Tried to allocate 20.00 MiB');
    const failed = (await pollUntilFinal(t.app, apiKey, String(oom))).final;
    assert.equal(
      failed.error,
      'ComfyUI: KSampler (node 3) failed: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB',
    );
  });

  test('the socket drops: the task still ends, read from GET /history', async () => {
    const [taskId] = await generate({ prompt: 'fog' });
    const { fake } = await holder(String(taskId));
    await fake.waitForRunning();
    fake.dropSockets();
    for (let i = 0; i < STEPS; i++) fake.step();
    const { final } = await pollUntilFinal(t.app, apiKey, String(taskId));
    fake.allowSockets();
    assert.equal(final.status, 'completed', final.error);
  });

  test('edit through /v1/images/edits (openai client): the reference uploaded and set on LoadImage', async () => {
    for (const fake of [a, b]) fake.setManual(false);
    const client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey });
    const reference = await makePng(300, 200);
    const answer = await client.images.edit({
      model: 'sdxl',
      prompt: 'the same, in watercolour',
      image: await toFile(reference, 'ref.png', { type: 'image/png' }),
      response_format: 'b64_json',
    });
    const bytes = Buffer.from(answer.data?.[0]?.b64_json ?? '', 'base64');
    const meta = await sharp(bytes).metadata();
    const edited = [...a.queued, ...b.queued].at(-1);
    const image = String(edited?.prompt['10']?.inputs.image);
    assert.match(image, /^atelier\/.+-1\.png$/);
    const uploaded = a.uploads.get(image) ?? b.uploads.get(image);
    assert.ok(uploaded, 'uploaded with POST /upload/image');
    const size = await sharp(uploaded).metadata();
    assert.deepEqual([meta.width, meta.height], [size.width, size.height]);
    for (const fake of [a, b]) fake.setManual(true);
  });

  test('MCP generate_image and the catalog check (GET /models/checkpoints)', async () => {
    for (const fake of [a, b]) fake.setManual(false);
    const mcp: McpSession = await startMcp({ ATELIER_API_KEY: apiKey, ATELIER_BASE_URL: t.baseUrl });
    try {
      const result = await call(mcp, 'generate_image', { prompt: 'a kite', model: 'sdxl', wait: 60 });
      const structured = result.structuredContent as { tasks: Task[] };
      assert.equal(structured.tasks[0]?.status, 'completed', JSON.stringify(result.content));
    } finally {
      await mcp.close();
    }
    const report = await checkCatalog({
      catalog: t.core.catalog,
      providers: t.core.providers,
      keys: {},
      now: Date.now,
    });
    assert.equal(report.routes[0]?.upstream, 'present');
    b.checkpoints.splice(0);
    const missing = await checkCatalog({
      catalog: t.core.catalog,
      providers: t.core.providers,
      keys: {},
      now: Date.now,
    });
    b.checkpoints.push('sd_xl_base_1.0.safetensors');
    assert.equal(missing.routes[0]?.upstream, 'missing');
    for (const fake of [a, b]) fake.setManual(true);
  });

  test('every server’s queue full: the next task waits for capacity, then runs when one has room', async () => {
    const queuedBefore = a.queued.length + b.queued.length;
    const ids = await generate({ prompt: 'a full house', count: 4 });
    const held = await Promise.all(ids.map((id) => holder(id)));
    assert.deepEqual([a.pending().length, b.pending().length], [1, 1], 'one running and one waiting on each');
    const [late] = await generate({ prompt: 'one too many' });
    const waiting = await until(async () => {
      const row = await t.core.resources.db
        .selectFrom('tasks')
        .select(['waiting_for', 'upstream_id', 'capacity_pool'])
        .where('id', '=', String(late))
        .executeTakeFirst();
      return row?.waiting_for === 'upstream_capacity' ? row : undefined;
    }, 'the task waits for upstream capacity');
    assert.equal(waiting.upstream_id, null, 'queued on no server');
    assert.equal(
      waiting.capacity_pool,
      'comfyui/comfyui/sdxl-t2i.json/none',
      'parked on the route’s capacity pool',
    );
    assert.equal(a.queued.length + b.queued.length, held.length + queuedBefore, 'nothing more was queued');
    for (const fake of [a, b]) fake.setManual(false);
    for (const id of [...ids, String(late)]) {
      const { final } = await pollUntilFinal(t.app, apiKey, id);
      assert.equal(final.status, 'completed', final.error);
    }
    for (const fake of [a, b]) fake.setManual(true);
  });

  test('metrics count ComfyUI’s calls like every provider’s', async () => {
    const metrics = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: bearer('metrics-token-0123456789'),
    });
    assert.equal(metrics.statusCode, 200);
    assert.match(
      metrics.body,
      /atelier_upstream_call_duration_seconds_count\{provider="comfyui",phase="submit",outcome="ok"/,
    );
    assert.match(
      metrics.body,
      /atelier_upstream_call_duration_seconds_count\{provider="comfyui",phase="poll",outcome="ok"/,
    );
    assert.match(metrics.body, /atelier_upstream_circuit_open\{provider="comfyui"\} 0/);
  });

  test('a server that goes away mid-task: the task is queued again on the other server', async () => {
    const [taskId] = await generate({ prompt: 'storm' });
    const { fake } = await holder(String(taskId));
    await fake.waitForRunning();
    fake.step();
    const other = fake === a ? b : a;
    const before = other.queued.length;
    await fake.close();
    await until(() => (other.queued.length > before ? true : undefined), 'queued on the other server');
    await other.waitForRunning();
    for (let i = 0; i < STEPS; i++) other.step();
    const { final } = await pollUntilFinal(t.app, apiKey, String(taskId));
    assert.equal(final.status, 'completed', final.error);
  });
});
