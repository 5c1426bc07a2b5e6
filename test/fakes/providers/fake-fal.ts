/**
 * A loopback stand-in for fal's queue API (docs.fal.ai, "Asynchronous inference"), `Authorization:
 * Key …`: submit `POST /{endpoint}` → `{request_id, status_url, response_url, cancel_url,
 * queue_position}`; status `GET /{owner}/{app}/requests/{id}/status?logs=1` walks each request
 * through IN_QUEUE (its queue position falling by one per read), IN_PROGRESS (logs with a tqdm
 * step counter rising) and COMPLETED; result `GET /{owner}/{app}/requests/{id}` → `{images: [{url,
 * width, height, content_type}], seed, has_nsfw_concepts}` with the image on its own "CDN" path;
 * cancel `PUT …/cancel` → 202 `CANCELLATION_REQUESTED`. Endpoints it does not serve answer 404;
 * a 422 names the input (`detail[].loc`); scripted refusals per submit (429 with Retry-After).
 *
 * Image tools, per their pages' input and output schemas (fal.ai/models/…/llms.txt, 2026):
 * `fal-ai/clarity-upscaler` takes `image_url` (required), `upscale_factor` (1 to 4, default 2),
 * optional `prompt` and `seed`, and answers `{image: {url, width, height, content_type}, seed}` — here
 * the sent image resampled by the factor; `fal-ai/birefnet`, `fal-ai/birefnet/v2` and
 * `fal-ai/ben/v2/image` (which also takes `seed`) take `image_url` and answer `{image: {…}}` — here
 * the image with its background made transparent.
 */
import {
  type FakeAnswer,
  type FakeHttpServer,
  type RecordedRequest,
  solidPng,
  startFakeHttpServer,
} from './fake-http.js';
import { cutoutPng, dataUrlBytes, sizeOf, upscaledPng } from './image-tools.js';

/** The image tools the fake serves (when listed in `endpoints`), by endpoint id. */
const TOOLS: Record<string, 'upscale' | 'remove_background'> = {
  'fal-ai/clarity-upscaler': 'upscale',
  'fal-ai/birefnet': 'remove_background',
  'fal-ai/birefnet/v2': 'remove_background',
  'fal-ai/ben/v2/image': 'remove_background',
};

const missing = (field: string, msg = 'field required'): FakeAnswer => ({
  status: 422,
  json: { detail: [{ loc: ['body', field], msg, type: 'missing' }] },
});

/** A tool's input refused as fal's validation would (422 naming the field), or undefined. */
function toolRefusal(
  tool: 'upscale' | 'remove_background',
  input: Record<string, unknown>,
): FakeAnswer | undefined {
  if (!dataUrlBytes(input.image_url) && !/^https?:\/\//.test(String(input.image_url ?? '')))
    return missing('image_url');
  const factor = input.upscale_factor;
  if (tool === 'upscale' && factor !== undefined && (typeof factor !== 'number' || factor < 1 || factor > 4))
    return missing('upscale_factor', 'Input should be less than or equal to 4');
  return undefined;
}

export interface FalRequestState {
  id: string;
  endpoint: string;
  input: Record<string, unknown>;
  position: number;
  step: number;
  steps: number;
  canceled: boolean;
  /** Fails when COMPLETED (error, error_type), as a runner error does. */
  error?: { message: string; type: string };
  statusReads: number;
}

export type FalScript =
  | { kind: 'refuse'; status: number; json: unknown; headers?: Record<string, string> }
  | { kind: 'fail_when_done'; message: string; type: string }
  | { kind: 'stall' };

export interface FakeFal extends FakeHttpServer {
  requests: RecordedRequest[];
  jobs: FalRequestState[];
  cancels: string[];
  script(...answers: FalScript[]): void;
  /** Lets stalled requests run on. */
  release(): void;
  /** The next `count` status reads cut the connection without an answer (the server goes away). */
  dropStatusReads(count: number): void;
  /**
   * When set, a queued request's place falls at a status read only if this answers true (a test lets
   * the queue move once it has seen the current place, instead of racing fal's reads with its own).
   */
  queueMoves?: (job: FalRequestState) => boolean;
}

export async function startFakeFal(options: {
  apiKey: string;
  endpoints: string[];
  queuePosition?: number;
}): Promise<FakeFal> {
  const jobs: FalRequestState[] = [];
  const cancels: string[] = [];
  const queue: FalScript[] = [];
  const files = new Map<string, Buffer>();
  let stalled = false;
  let drops = 0;
  let counter = 0;
  let baseUrl = '';

  const appOf = (endpoint: string) => endpoint.split('/').slice(0, 2).join('/');

  const server = await startFakeHttpServer(async (request): Promise<FakeAnswer> => {
    const file = /^\/files\/(\w+)\.png$/.exec(request.path);
    if (request.method === 'GET' && file) {
      const bytes = files.get(file[1] ?? '');
      return bytes ? { status: 200, raw: bytes, contentType: 'image/png' } : { status: 404, raw: 'expired' };
    }
    if (request.headers.authorization !== `Key ${options.apiKey}`)
      return { status: 401, json: { detail: 'Unauthorized' } };
    if (request.method === 'GET' && request.path === '/v1/models') {
      const asked = request.query.getAll('endpoint_id');
      const models = asked.filter((id) => options.endpoints.includes(id));
      return {
        status: 200,
        json: {
          models: models.map((endpoint_id) => ({
            endpoint_id,
            metadata: { status: 'active', category: 'text-to-image' },
          })),
          next_cursor: null,
          has_more: false,
        },
      };
    }
    const path = request.path.replace(/^\//, '');
    const action = /^(.+?)\/requests\/([\w-]+)(\/status|\/cancel)?$/.exec(path);
    if (action) {
      const job = jobs.find((one) => one.id === action[2] && appOf(one.endpoint) === action[1]);
      if (!job) return { status: 404, json: { detail: 'Request not found' } };
      if (action[3] === '/cancel' && request.method === 'PUT') {
        cancels.push(job.id);
        if (job.step >= job.steps) return { status: 400, json: { status: 'ALREADY_COMPLETED' } };
        job.canceled = true;
        return { status: 202, json: { status: 'CANCELLATION_REQUESTED' } };
      }
      if (action[3] === '/status' && drops > 0) {
        drops--;
        request.socket?.destroy();
        return { hang: true };
      }
      if (action[3] === '/status') return status(job, request);
      return result(job);
    }
    if (request.method !== 'POST') return { status: 405, json: { detail: 'Method Not Allowed' } };
    if (!options.endpoints.includes(path))
      return { status: 404, json: { detail: `Application '${path}' not found` } };
    const scripted = queue.shift();
    if (scripted?.kind === 'refuse')
      return {
        status: scripted.status,
        json: scripted.json,
        ...(scripted.headers && { headers: scripted.headers }),
      };
    const input = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
    const tool = TOOLS[path];
    const refusal = tool
      ? toolRefusal(tool, input)
      : typeof input.prompt !== 'string' || input.prompt === ''
        ? missing('prompt')
        : undefined;
    if (refusal) return refusal;
    const id = `0198c0de-0000-4000-8000-${String(++counter).padStart(12, '0')}`;
    if (scripted?.kind === 'stall') stalled = true;
    const job: FalRequestState = {
      id,
      endpoint: path,
      input,
      position: options.queuePosition ?? 3,
      step: 0,
      steps: 4,
      canceled: false,
      statusReads: 0,
      ...(scripted?.kind === 'fail_when_done' && {
        error: { message: scripted.message, type: scripted.type },
      }),
    };
    jobs.push(job);
    const base = `${baseUrl}/${appOf(path)}/requests/${id}`;
    return {
      status: 200,
      json: {
        status: 'IN_QUEUE',
        request_id: id,
        response_url: base,
        status_url: `${base}/status`,
        cancel_url: `${base}/cancel`,
        queue_position: job.position,
      },
    };
  });
  baseUrl = server.baseUrl;

  function status(job: FalRequestState, request: RecordedRequest): FakeAnswer {
    job.statusReads++;
    const logs = request.query.get('logs') === '1';
    if (job.canceled)
      return {
        status: 200,
        json: { status: 'COMPLETED', error: 'Request was cancelled', error_type: 'request_cancelled' },
      };
    if (job.position > 0) {
      const json = { status: 'IN_QUEUE', queue_position: job.position, response_url: '' };
      if (!stalled && (fake.queueMoves?.(job) ?? true)) job.position--;
      return { status: 200, json };
    }
    if (job.step < job.steps) {
      const lines = Array.from({ length: job.step + 1 }, (_, i) => ({
        message: `${Math.round((i / job.steps) * 100)}%| | ${i}/${job.steps}`,
        level: 'INFO',
        source: 'user',
        timestamp: new Date().toISOString(),
      }));
      if (!stalled) job.step++;
      return { status: 200, json: { status: 'IN_PROGRESS', ...(logs && { logs: lines }) } };
    }
    if (job.error)
      return {
        status: 200,
        json: { status: 'COMPLETED', logs: [], error: job.error.message, error_type: job.error.type },
      };
    return { status: 200, json: { status: 'COMPLETED', logs: [], metrics: { inference_time: 1.2 } } };
  }

  async function result(job: FalRequestState): Promise<FakeAnswer> {
    if (job.step < job.steps || job.position > 0)
      return { status: 400, json: { detail: 'Request is still in progress' } };
    if (job.error)
      return {
        status: 500,
        json: { detail: job.error.message },
        headers: { 'x-fal-error-type': job.error.type },
      };
    const tool = TOOLS[job.endpoint];
    if (tool) return toolResult(job, tool);
    const size = job.input.image_size;
    const [w, h] =
      typeof size === 'object' && size !== null
        ? [Number((size as { width: number }).width), Number((size as { height: number }).height)]
        : size === 'landscape_16_9'
          ? [1024, 576]
          : [1024, 1024];
    const png = await solidPng(Math.max(8, w >> 4), Math.max(8, h >> 4));
    const key = job.id.replace(/-/g, '');
    files.set(key, png);
    return {
      status: 200,
      json: {
        images: [{ url: `${baseUrl}/files/${key}.png`, width: w, height: h, content_type: 'image/png' }],
        seed: job.input.seed ?? 42,
        has_nsfw_concepts: [false],
        prompt: job.input.prompt,
      },
    };
  }

  /** A tool's answer: one `image` (the upscaled or cut-out picture), and the seed for the upscaler. */
  async function toolResult(
    job: FalRequestState,
    tool: 'upscale' | 'remove_background',
  ): Promise<FakeAnswer> {
    const sent = dataUrlBytes(job.input.image_url) ?? (await solidPng(16, 16));
    const factor = typeof job.input.upscale_factor === 'number' ? job.input.upscale_factor : 2;
    const png = tool === 'upscale' ? await upscaledPng(sent, factor) : await cutoutPng(sent);
    const key = job.id.replace(/-/g, '');
    files.set(key, png);
    const image = { url: `${baseUrl}/files/${key}.png`, ...(await sizeOf(png)), content_type: 'image/png' };
    return {
      status: 200,
      json:
        tool === 'upscale' ? { image, seed: job.input.seed ?? 42, timings: { inference: 1.2 } } : { image },
    };
  }

  const fake: FakeFal = {
    ...server,
    jobs,
    cancels,
    script: (...answers) => void queue.push(...answers),
    release: () => {
      stalled = false;
    },
    dropStatusReads: (count) => {
      drops = count;
    },
  };
  return fake;
}
