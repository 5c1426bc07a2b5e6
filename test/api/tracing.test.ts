import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { operatorAndUser } from '../admin/admin-support.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { rateLimited } from '../fakes/providers/openai-refusals.js';
import { pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, freePort, type TestApp } from '../support/test-server.js';
import { signedInCookie } from '../support/website-session.js';

/** One span as OTLP/HTTP's JSON encoding carries it (ids in hex, attributes as typed values). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  status?: { code?: number; message?: string };
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** A loopback OTLP/HTTP collector: every span posted to /v1/traces (JSON), and the resources' service names. */
async function startCollector() {
  const spans: OtlpSpan[] = [];
  const services: string[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      contentTypes.push(String(request.headers['content-type']));
      if (request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{
          resource: { attributes: OtlpSpan['attributes'] };
          scopeSpans: Array<{ spans: OtlpSpan[] }>;
        }>;
      };
      for (const resource of body.resourceSpans) {
        const name = resource.resource.attributes.find((a) => a.key === 'service.name');
        services.push(String(name?.value.stringValue));
        for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return { spans, services, contentTypes, url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** A webhook receiver that answers 204 to every delivery. */
async function startReceiver() {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return { host: `127.0.0.1:${port}`, url: `http://127.0.0.1:${port}/hook`, count: () => received, server };
}

const attribute = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  const [first] = Object.values(value);
  return typeof first === 'string' && 'intValue' in value ? Number(first) : first;
};

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const UPSTREAM_KEY = 'sk-tracing';
const STATUS_ERROR = 2;

/**
 * Issue 47: a loopback OTLP/HTTP collector gets the spans of generations — one whose upstream call
 * is refused (429 with a Retry-After) and retried, one the upstream refuses outright — every span in
 * the caller's trace (its `traceparent`), chained request → task → upstream calls, result, webhook.
 */
describe('traces over OTLP/HTTP', () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dir: string;
  const logLines: Array<Record<string, unknown>> = [];

  before(async () => {
    collector = await startCollector();
    receiver = await startReceiver();
    fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY });
    dir = await mkdtemp(join(tmpdir(), 'atelier-tracing-'));
    const catalog = join(dir, 'catalog.json');
    const upstream = { id: 'upstream', provider: 'openai', upstreamModel: 'gpt-image-1.5', modes: ['text'] };
    await writeFile(catalog, JSON.stringify({ models: [...DEFAULT_CATALOG.models, upstream] }));
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    t = await createTestApp({
      env: {
        ATELIER_CATALOG: catalog,
        ATELIER_OPENAI_BASE_URL: fake.baseUrl,
        ATELIER_OPENAI_API_KEY: UPSTREAM_KEY,
        ATELIER_UPLOAD_ALLOWED_HOSTS: receiver.host,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'atelier-under-test',
      },
      overrides: { logger: pino({ level: 'info' }, sink) },
    });
  });
  after(async () => {
    await t?.close();
    await fake?.close();
    collector?.close();
    receiver?.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('a retried call and a refused one, in the caller’s trace', async () => {
    const { apiKey } = await t.createAccount('traced@example.com');
    const generate = async (prompt: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: { authorization: `Bearer ${apiKey}`, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
        payload: { prompt, model: 'upstream', imageSize: '1K', callbackUrl: receiver.url },
      });
      assert.equal(res.statusCode, 200, res.body);
      const [taskId = ''] = res.json<{ task_ids: string[] }>().task_ids;
      await pollUntilFinal(t.app, apiKey, taskId, 60_000);
      return taskId;
    };
    // First: refused for capacity (429, Retry-After 0 s), then drawn; then one the upstream refuses.
    const limited = rateLimited('gpt-image-1.5', 0) as {
      status: number;
      json: unknown;
      headers: Record<string, string>;
    };
    fake.script({ kind: 'error', ...limited }, { kind: 'image' });
    const retried = await generate('a lighthouse after a wait');
    fake.script({
      kind: 'error',
      status: 400,
      json: {
        error: {
          message: 'Your request was rejected by the safety system.',
          type: 'image_generation_user_error',
          param: null,
          code: 'moderation_blocked',
        },
      },
    });
    const refused = await generate('a forbidden lighthouse');
    // Both webhooks delivered: a delivery's span ends once the sender has the receiver's answer and
    // has recorded it, after the receiver counted the request — so what is awaited is the spans
    // themselves, each flush sending what has ended.
    const deliveries = () => collector.spans.filter((s) => s.name === 'webhook delivery').length;
    for (let i = 0; i < 600 && deliveries() < 2; i++) {
      await t.core.resources.tracing.flush();
      if (deliveries() < 2) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(receiver.count(), 2);
    assert.equal(deliveries(), 2, 'both deliveries traced');

    const { spans } = collector;
    assert.ok(spans.length > 0, 'the collector got spans');
    assert.deepEqual([...new Set(collector.services)], ['atelier-under-test']);
    assert.ok(collector.contentTypes.every((type) => type.startsWith('application/json')));
    // Every span is in the caller's trace.
    assert.deepEqual([...new Set(spans.map((s) => s.traceId))], [CALLER_TRACE]);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const requests = spans.filter((s) => s.name === 'generate upstream');
    assert.equal(requests.length, 2);
    for (const request of requests) {
      assert.equal(request.parentSpanId, CALLER_SPAN, 'the request span is the caller’s child');
      assert.equal(attribute(request, 'gen_ai.operation.name'), 'generate_content');
      assert.equal(attribute(request, 'gen_ai.request.model'), 'upstream');
      assert.equal(attribute(request, 'gen_ai.provider.name'), 'openai');
      const admission = spans.find((s) => s.name === 'admission' && s.parentSpanId === request.spanId);
      assert.ok(admission, 'admission under the request');
      assert.equal(attribute(admission, 'atelier.tier'), 'trial');
      assert.equal(attribute(admission, 'atelier.admitted'), true);
    }

    /** The task's span (under its request's) and the spans under it, in start order. */
    const taskTree = (taskId: string) => {
      const task = spans.find((s) => s.name === 'task' && attribute(s, 'atelier.task_id') === taskId);
      assert.ok(task, `the span of ${taskId}`);
      assert.equal(byId.get(task.parentSpanId ?? '')?.name, 'generate upstream');
      const children = spans.filter((s) => s.parentSpanId === task.spanId);
      return { task, children };
    };

    const first = taskTree(retried);
    assert.equal(attribute(first.task, 'atelier.task.status'), 'completed');
    assert.equal(attribute(first.task, 'atelier.upstream.refusals'), 1);
    const calls = first.children.filter((s) => s.name === 'generate_content gpt-image-1.5');
    assert.equal(calls.length, 2, 'the refused call and its retry');
    const [refusedCall, drawn] = calls.sort(
      (a, b) =>
        Number(attribute(a, 'atelier.upstream.attempt')) - Number(attribute(b, 'atelier.upstream.attempt')),
    ) as [OtlpSpan, OtlpSpan];
    assert.equal(refusedCall.kind, 3, 'a client span'); // SPAN_KIND_CLIENT
    assert.equal(attribute(refusedCall, 'atelier.upstream.refused'), true);
    assert.equal(attribute(refusedCall, 'atelier.upstream.status'), 'refused');
    assert.equal(attribute(refusedCall, 'atelier.upstream.retry_after_ms'), 0);
    assert.equal(attribute(refusedCall, 'error.type'), 'rate_limited');
    assert.equal(refusedCall.status?.code, STATUS_ERROR);
    assert.equal(attribute(refusedCall, 'gen_ai.provider.name'), 'openai');
    assert.equal(attribute(refusedCall, 'gen_ai.request.model'), 'gpt-image-1.5');
    assert.equal(attribute(refusedCall, 'atelier.route'), 'openai/gpt-image-1.5');
    assert.equal(attribute(drawn, 'atelier.upstream.status'), 'done');
    assert.equal(attribute(drawn, 'atelier.upstream.refused'), false);
    assert.ok(
      Number(attribute(drawn, 'atelier.upstream.attempt')) >
        Number(attribute(refusedCall, 'atelier.upstream.attempt')),
    );
    assert.ok(
      first.children.some((s) => s.name === 'store result'),
      'the result stored',
    );
    assert.ok(
      first.children.some((s) => s.name === 'webhook delivery'),
      'its webhook',
    );

    const second = taskTree(refused);
    assert.equal(attribute(second.task, 'atelier.task.status'), 'failed');
    assert.equal(second.task.status?.code, STATUS_ERROR);
    const [call] = second.children.filter((s) => s.name === 'generate_content gpt-image-1.5');
    assert.ok(call);
    assert.equal(attribute(call, 'atelier.upstream.status'), 'failed');
    assert.equal(attribute(call, 'atelier.upstream.refused'), false);
    assert.match(call.status?.message ?? '', /safety/);
    const delivery = second.children.find((s) => s.name === 'webhook delivery');
    assert.ok(delivery);
    assert.equal(attribute(delivery, 'http.response.status_code'), 204);

    // The trace id is on the task record (the operator's task detail) and in the task's log lines.
    const { op } = await operatorAndUser(t);
    const life = await t.app.inject({ method: 'GET', url: `/api/admin/v1/tasks/${retried}`, headers: op });
    assert.equal(life.statusCode, 200, life.body);
    const trace = life.json<{ trace: { trace_id: string; span_id: string; parent_span_id: string } }>().trace;
    assert.deepEqual(trace, {
      trace_id: CALLER_TRACE,
      span_id: first.task.spanId,
      parent_span_id: first.task.parentSpanId,
    });
    const statusLines = logLines.filter(
      (line) => line.msg === 'task status changed' && line.taskId === retried,
    );
    assert.ok(statusLines.length > 0);
    assert.ok(statusLines.every((line) => line.traceId === CALLER_TRACE));
  });

  test('without a traceparent (or with a malformed one) a request starts its own trace', async () => {
    const { apiKey } = await t.createAccount('untraced@example.com');
    const before = collector.spans.length;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: { authorization: `Bearer ${apiKey}`, traceparent: '00-nothex-00f067aa0ba902b7-01' },
      payload: { prompt: 'a lighthouse, alone', imageSize: '1K' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const [taskId = ''] = res.json<{ task_ids: string[] }>().task_ids;
    await pollUntilFinal(t.app, apiKey, taskId, 60_000);
    await t.core.resources.tracing.flush();
    const mine = collector.spans.slice(before);
    const request = mine.find((s) => s.name.startsWith('generate ') && !s.parentSpanId);
    assert.ok(request, 'a root span');
    assert.notEqual(request.traceId, CALLER_TRACE);
    const task = mine.find((s) => s.name === 'task' && attribute(s, 'atelier.task_id') === taskId);
    assert.equal(task?.traceId, request.traceId);
    assert.equal(task?.parentSpanId, request.spanId);
  });

  test('the chat face joins the caller’s trace; a canceled task’s span ends, marked canceled', async () => {
    const { apiKey } = await t.createAccount('chat-traced@example.com');
    const auth = { authorization: `Bearer ${apiKey}` };
    const chatTrace = 'a'.repeat(32);
    const chat = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...auth, traceparent: `00-${chatTrace}-${CALLER_SPAN}-01` },
      payload: { model: 'upstream', messages: [{ role: 'user', content: 'a fox' }], modalities: ['image'] },
    });
    assert.equal(chat.statusCode, 200, chat.body);

    // A call that never answers, canceled by its caller once the upstream has it.
    fake.script({ kind: 'hang' });
    const calls = fake.calls.length;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: auth,
      payload: { prompt: 'a lighthouse never drawn', model: 'upstream', imageSize: '1K' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const [taskId = ''] = res.json<{ task_ids: string[] }>().task_ids;
    for (let i = 0; i < 400 && fake.calls.length === calls; i++) await new Promise((r) => setTimeout(r, 25));
    const cancel = await t.app.inject({
      method: 'POST',
      url: `/api/v1/tasks/${taskId}/cancel`,
      headers: auth,
    });
    assert.equal(cancel.statusCode, 200, cancel.body);
    await t.core.resources.tracing.flush();

    const request = collector.spans.find((s) => s.traceId === chatTrace && s.name === 'generate upstream');
    assert.ok(request, 'the chat request’s span, in the caller’s trace');
    assert.equal(request.parentSpanId, CALLER_SPAN);
    assert.ok(
      collector.spans.some((s) => s.name === 'task' && s.parentSpanId === request.spanId),
      'its task under it',
    );
    const canceled = collector.spans.find(
      (s) => s.name === 'task' && attribute(s, 'atelier.task_id') === taskId,
    );
    assert.ok(canceled, 'the canceled task’s span');
    assert.equal(attribute(canceled, 'atelier.task.canceled'), true);
    assert.equal(attribute(canceled, 'atelier.task.canceled_by'), 'caller');
    assert.equal(attribute(canceled, 'atelier.task.status'), 'failed');
    assert.notEqual(canceled.status?.code, STATUS_ERROR, 'a cancel is no error');
  });

  test('the website’s generate joins the caller’s trace too', async () => {
    const password = 'correct horse battery';
    const account = await t.createAccount('web-traced@example.com', { password });
    const cookie = await signedInCookie(t.app, { email: account.email, password });
    const webTrace = 'b'.repeat(32);
    const res = await t.app.inject({
      method: 'POST',
      url: '/web/api/generate',
      headers: { cookie, origin: 'http://127.0.0.1:8080', traceparent: `00-${webTrace}-${CALLER_SPAN}-01` },
      payload: { prompt: 'a lighthouse from the website', model: 'upstream', imageSize: '1K' },
    });
    assert.equal(res.statusCode, 200, res.body);
    await t.core.resources.tracing.flush();
    const request = collector.spans.find((s) => s.traceId === webTrace && s.name === 'generate upstream');
    assert.ok(request, 'the website request’s span, in the caller’s trace');
    assert.equal(request.parentSpanId, CALLER_SPAN);
    assert.equal(attribute(request, 'atelier.source'), 'web');
  });
});
