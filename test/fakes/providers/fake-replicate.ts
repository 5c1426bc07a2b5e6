/**
 * A loopback stand-in for the Replicate HTTP API: model schemas (Cog OpenAPI, enums behind
 * `allOf`/`$ref` as Cog writes them), prediction create/get/list/cancel, and output files. It
 * validates every create against the model's input schema like the real API (an unknown input,
 * a wrong type or a value outside an enum is a 422), and moves each prediction through a scripted
 * status list, one step per GET.
 */
import { randomBytes } from 'node:crypto';
import {
  type FakeAnswer,
  type FakeHttpServer,
  type RecordedRequest,
  smallSizeFor,
  solidPng,
  startFakeHttpServer,
} from './fake-http.js';
import { type FakeModel, toOpenApi, validateInput } from './fake-replicate-models.js';
import { cutoutPng, dataUrlBytes, upscaledPng } from './image-tools.js';
import { type UpstreamLimit, upstreamLatency } from './upstream-limit.js';

export type CreateScript =
  | { kind: 'error'; status: number; json: unknown; headers?: Record<string, string> }
  /** The prediction is created, but the answer never comes (a lost create). */
  | { kind: 'hang-after-create' }
  | { kind: 'malformed-after-create' }
  /** The prediction is created, then the answer is an error (a 500 from a proxy or the API itself). */
  | { kind: 'error-after-create'; status: number; json: unknown; headers?: Record<string, string> };

export type PollScript =
  | { kind: 'error'; status: number; json: unknown; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'malformed' };

export interface Lifecycle {
  /** Statuses shown by the create answer and then by each GET; the last one sticks. */
  statuses: string[];
  error?: string;
  logs?: string;
  dataRemoved?: boolean;
  /** `list`: the output is an array of URLs (multi-output models). */
  outputShape?: 'string' | 'list';
}

export interface FakePrediction {
  id: string;
  model: string;
  version: string;
  input: Record<string, unknown>;
  createdAt: string;
  step: number;
  lifecycle: Lifecycle;
  canceled: boolean;
  source: 'api' | 'web';
}

export interface FakeReplicate extends FakeHttpServer {
  predictions: FakePrediction[];
  /** Raw create bodies that passed validation. */
  creates: Array<{ path: string; body: Record<string, unknown> }>;
  scriptCreate(...answers: CreateScript[]): void;
  /** Resolves when the next scripted hang is served (the request arrived and will never be answered). */
  nextHang(): Promise<void>;
  /** Answers for the next GETs of predictions (one prediction or the list), before normal service. */
  scriptPoll(...answers: PollScript[]): void;
  /** Lifecycles of the next created predictions; afterwards starting → processing → succeeded. */
  scriptLifecycle(...lifecycles: Lifecycle[]): void;
  /** Adds a prediction as if created earlier (by another task, process or the website). */
  seedPrediction(
    prediction: Partial<FakePrediction> & { model: string; input: Record<string, unknown> },
  ): FakePrediction;
}

const TERMINAL = new Set(['succeeded', 'failed', 'canceled', 'aborted']);

/** Replicate's answer past its rate limit: 429 with `retry-after` and its "throttled" detail. */
function throttled(retryAfterMs: number): FakeAnswer {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return {
    status: 429,
    headers: { 'retry-after': String(seconds) },
    json: {
      detail: `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`,
      status: 429,
    },
  };
}

/** Starts a fake Replicate API that accepts `token` and knows `models`. */
export async function startFakeReplicate({
  token,
  models,
  pageSize = 100,
  limit,
}: {
  token: string;
  models: FakeModel[];
  pageSize?: number;
  /** The upstream's own rate limit on creates (429 past it, as Replicate throttles), and their time. */
  limit?: UpstreamLimit;
}): Promise<FakeReplicate> {
  const predictions: FakePrediction[] = [];
  const creates: FakeReplicate['creates'] = [];
  const createQueue: CreateScript[] = [];
  const pollQueue: PollScript[] = [];
  const lifecycleQueue: Lifecycle[] = [];
  const hangWaiters: Array<() => void> = [];
  const hang = (): FakeAnswer => {
    for (const waiter of hangWaiters.splice(0)) waiter();
    return { hang: true };
  };
  let baseUrl = '';
  // Real time (minus a margin), so that the adapter's created_after window sees these predictions.
  let clock = Date.now() - 60_000;
  const nextTimestamp = () => {
    clock += 1000;
    return new Date(clock).toISOString();
  };

  const byName = (name: string) => models.find((m) => m.name === name);
  const statusOf = (p: FakePrediction) =>
    p.canceled
      ? 'canceled'
      : (p.lifecycle.statuses[Math.min(p.step, p.lifecycle.statuses.length - 1)] ?? 'starting');

  function view(p: FakePrediction): Record<string, unknown> {
    const status = statusOf(p);
    const url = `${baseUrl}/files/${p.id}.png`;
    return {
      id: p.id,
      model: p.model,
      version: p.version,
      // Replicate does not keep data URLs: the echoed input holds a placeholder instead.
      input: Object.fromEntries(
        Object.entries(p.input).map(([k, v]) => [
          k,
          typeof v === 'string' && v.startsWith('data:')
            ? 'https://replicate.delivery/inline-file'
            : Array.isArray(v)
              ? v.map((x) =>
                  typeof x === 'string' && x.startsWith('data:')
                    ? 'https://replicate.delivery/inline-file'
                    : x,
                )
              : v,
        ]),
      ),
      status,
      created_at: p.createdAt,
      started_at: status === 'starting' ? null : p.createdAt,
      completed_at: TERMINAL.has(status) ? p.createdAt : null,
      source: p.source,
      logs: p.lifecycle.logs ?? '',
      error: status === 'failed' ? (p.lifecycle.error ?? 'Prediction failed') : null,
      output:
        status === 'succeeded' && !p.lifecycle.dataRemoved
          ? p.lifecycle.outputShape === 'list'
            ? [url]
            : url
          : null,
      data_removed: p.lifecycle.dataRemoved ?? false,
      metrics: {},
      urls: { get: `${baseUrl}/v1/predictions/${p.id}`, cancel: `${baseUrl}/v1/predictions/${p.id}/cancel` },
    };
  }

  function create(
    model: FakeModel,
    input: Record<string, unknown>,
    source: 'api' | 'web' = 'api',
    official = false,
  ): FakePrediction {
    const prediction: FakePrediction = {
      id: randomBytes(13).toString('hex').slice(0, 26),
      model: model.name,
      // An official model run by its name (POST /v1/models/{owner}/{name}/predictions) does not
      // disclose its version: Replicate's prediction says "hidden" (its HTTP API docs, 2025).
      version: official ? 'hidden' : model.version,
      input,
      createdAt: nextTimestamp(),
      step: 0,
      lifecycle: lifecycleQueue.shift() ?? { statuses: ['starting', 'processing', 'succeeded'] },
      canceled: false,
      source,
    };
    predictions.push(prediction);
    return prediction;
  }

  async function handle(request: RecordedRequest): Promise<FakeAnswer> {
    const file = /^\/files\/([a-z0-9]+)\.png$/.exec(request.path);
    if (file && request.method === 'GET') {
      const p = predictions.find((x) => x.id === file[1]);
      const tool = p ? byName(p.model)?.tool : undefined;
      const sent = dataUrlBytes(p?.input.image);
      if (tool && sent) {
        const scale = typeof p?.input.scale === 'number' ? p.input.scale : 4;
        const raw = tool === 'upscale' ? await upscaledPng(sent, scale) : await cutoutPng(sent);
        return { status: 200, raw, contentType: 'image/png' };
      }
      const size = smallSizeFor(typeof p?.input.aspect_ratio === 'string' ? p.input.aspect_ratio : '1:1');
      return {
        status: 200,
        raw: await solidPng(size.width, size.height, '#11aa99'),
        contentType: 'image/png',
      };
    }
    if (request.headers.authorization !== `Bearer ${token}`) {
      return {
        status: 401,
        json: {
          title: 'Unauthenticated',
          detail: 'You did not pass a valid authentication token',
          status: 401,
        },
      };
    }
    const problem = (status: number, detail: string, title = 'Invalid request'): FakeAnswer => ({
      status,
      json: { title, detail, status },
      headers: { 'content-type': 'application/problem+json' },
    });

    // Model schemas.
    const modelPath = /^\/v1\/models\/([^/]+)\/([^/]+)(?:\/versions\/([^/]+))?$/.exec(request.path);
    if (modelPath && request.method === 'GET') {
      const model = byName(`${modelPath[1]}/${modelPath[2]}`);
      if (!model || (modelPath[3] && modelPath[3] !== model.version))
        return problem(404, 'Not found', 'Not found');
      const version = {
        id: model.version,
        openapi_schema: toOpenApi(model),
        created_at: '2026-01-01T00:00:00Z',
      };
      if (modelPath[3]) return { status: 200, json: version };
      const [owner, name] = model.name.split('/');
      return { status: 200, json: { owner, name, visibility: 'public', latest_version: version } };
    }

    // Create.
    const createPath = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(request.path);
    if (request.method === 'POST' && (createPath || request.path === '/v1/predictions')) {
      let body: unknown;
      try {
        body = JSON.parse(request.body.toString('utf8'));
      } catch {
        return problem(400, 'Invalid JSON');
      }
      if (typeof body !== 'object' || body === null) return problem(400, 'Invalid body');
      const record = body as Record<string, unknown>;
      const allowed = createPath
        ? ['input', 'webhook', 'webhook_events_filter', 'stream']
        : ['version', 'input', 'webhook', 'webhook_events_filter', 'stream'];
      const unknown = Object.keys(record).find((k) => !allowed.includes(k));
      if (unknown)
        return problem(
          422,
          `- (root): Additional property ${unknown} is not allowed`,
          'Input validation failed',
        );
      let model: FakeModel | undefined;
      if (createPath) model = byName(`${createPath[1]}/${createPath[2]}`);
      else model = models.find((m) => m.version === record.version);
      if (!model) return problem(404, 'The requested model or version does not exist', 'Not found');
      const invalid = validateInput(model, record.input);
      if (invalid) return problem(422, invalid, 'Input validation failed');
      const admission = limit?.admit();
      if (admission && !admission.ok) return throttled(admission.retryAfterMs);
      await upstreamLatency(limit);
      if (admission?.ok) admission.done();
      const script = createQueue.shift();
      if (script?.kind === 'error')
        return { status: script.status, json: script.json, headers: script.headers };
      creates.push({ path: request.path, body: record });
      const prediction = create(model, record.input as Record<string, unknown>, 'api', createPath !== null);
      if (script?.kind === 'hang-after-create') return hang();
      if (script?.kind === 'error-after-create')
        return { status: script.status, json: script.json, headers: script.headers };
      if (script?.kind === 'malformed-after-create')
        return { status: 201, raw: '{"id": "', contentType: 'application/json' };
      return { status: 201, json: view(prediction) };
    }

    // List.
    if (request.method === 'GET' && request.path === '/v1/predictions') {
      const script = pollQueue.shift();
      if (script?.kind === 'hang') return hang();
      if (script?.kind === 'malformed')
        return { status: 200, raw: '{"results": [', contentType: 'application/json' };
      if (script?.kind === 'error')
        return { status: script.status, json: script.json, headers: script.headers };
      const after = request.query.get('created_after');
      const cursor = Number(request.query.get('cursor') ?? '0');
      const visible = predictions
        .filter((p) => !after || p.createdAt >= after)
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      const page = visible.slice(cursor, cursor + pageSize);
      const more = cursor + pageSize < visible.length;
      const next = more
        ? `${baseUrl}/v1/predictions?cursor=${cursor + pageSize}${after ? `&created_after=${encodeURIComponent(after)}` : ''}`
        : null;
      return { status: 200, json: { previous: null, next, results: page.map(view) } };
    }

    // Get / cancel.
    const one = /^\/v1\/predictions\/([a-z0-9]+)(\/cancel)?$/.exec(request.path);
    if (one) {
      const p = predictions.find((x) => x.id === one[1]);
      if (one[2] && request.method === 'POST') {
        if (!p) return problem(404, 'Not found', 'Not found');
        if (!TERMINAL.has(statusOf(p))) p.canceled = true;
        return { status: 200, json: view(p) };
      }
      if (request.method === 'GET') {
        const script = pollQueue.shift();
        if (script?.kind === 'hang') return hang();
        if (script?.kind === 'malformed')
          return { status: 200, raw: '{"status": "proc', contentType: 'application/json' };
        if (script?.kind === 'error')
          return { status: script.status, json: script.json, headers: script.headers };
        if (!p) return problem(404, 'Not found', 'Not found');
        p.step += 1;
        return { status: 200, json: view(p) };
      }
    }
    return problem(404, `no route ${request.method} ${request.path}`, 'Not found');
  }

  const server = await startFakeHttpServer(handle);
  baseUrl = server.baseUrl;
  return {
    ...server,
    predictions,
    creates,
    scriptCreate: (...answers) => createQueue.push(...answers),
    nextHang: () => new Promise((resolve) => hangWaiters.push(resolve)),
    scriptPoll: (...answers) => pollQueue.push(...answers),
    scriptLifecycle: (...lifecycles) => lifecycleQueue.push(...lifecycles),
    seedPrediction(partial) {
      const model = byName(partial.model);
      if (!model) throw new Error(`unknown fake model ${partial.model}`);
      const p = create(model, partial.input, partial.source ?? 'api');
      Object.assign(p, partial, { model: model.name });
      return p;
    },
  };
}
