/**
 * fal's queue API, an asynchronous upstream like Replicate: `submit` enqueues and answers
 * `pending` with fal's request id; the engine polls its status; the result's image URL (on fal's
 * CDN, which keeps files for a limited time) is handed over as `{url}` and copied at once.
 *
 * Wire format checked against fal's documentation (2026, docs.fal.ai "Asynchronous inference" and
 * the queue API reference), with the key in `Authorization: Key …`:
 * - submit `POST {queue}/{endpoint}` with the input as the JSON body → `{request_id, status_url,
 *   response_url, cancel_url, queue_position}`;
 * - status `GET {queue}/{owner}/{app}/requests/{id}/status?logs=1` → `{status: IN_QUEUE,
 *   queue_position}`, `{status: IN_PROGRESS, logs: [{message, timestamp}]}`, `{status: COMPLETED,
 *   logs, error?, error_type?}`;
 * - result `GET {queue}/{owner}/{app}/requests/{id}` → the endpoint's output (`images[].url`,
 *   `has_nsfw_concepts`; an image tool such as `fal-ai/clarity-upscaler` or `fal-ai/birefnet`
 *   answers one `image: {url}`), or the failed request's error status with `{detail}`;
 * - cancel `PUT {queue}/{owner}/{app}/requests/{id}/cancel`.
 * Status, result and cancel drop the endpoint's sub-path (`fal-ai/flux/dev` → `fal-ai/flux`), as
 * the `status_url` and `response_url` of the submit answer do; they are built from the base URL so
 * that a proxy set in ATELIER_FAL_BASE_URL is used for every call.
 *
 * Errors: 401/403 a bad key, 404 an endpoint that does not exist, 422 a refused input (`detail[]`
 * with `loc`), 429 a limit on requests at once (a capacity refusal the pool learns from), 5xx.
 * Only allow-listed text reaches a task's message (upstream-error-text.ts): fal's `error_type`
 * token, the names of the inputs Atelier fills that a 422 names, never free text.
 */
import type { Dispatcher } from 'undici';
import { DEFAULT_FAL_ENDPOINT, type FalEndpoint, falInput } from './fal-inputs.js';
import { falModelPresence } from './model-lists.js';
import type {
  ImageProvider,
  PollOutcome,
  ProviderFailure,
  ProviderRequest,
  SubmitOutcome,
} from './provider.js';
import { retryAfterMs } from './retry-after.js';
import {
  callUpstream,
  createUpstreamDispatcher,
  transportFailure,
  type UpstreamAnswer,
} from './upstream-call.js';
import { httpFailureText, statusSentence } from './upstream-error-text.js';
import { failureFactory, statusClass } from './upstream-failures.js';
import { isRecord, parseJson } from './upstream-json.js';

export interface FalProviderOptions {
  baseUrl?: string;
  /** Input shapes by endpoint (the catalog's `falEndpoints`); others take FLUX's shape. */
  endpoints?: Record<string, FalEndpoint>;
  requestTimeoutMs?: number;
  maxInlineBytes?: number;
  pollIntervalMs?: number;
  dispatcher?: Dispatcher;
  now?: () => number;
}

const REQUEST_ID = /^[A-Za-z0-9-]{8,64}$/;
/** A task's upstream id: `owner/app/request_id`, all that status, result and cancel need. */
const UPSTREAM_ID = /^([a-z0-9][a-z0-9_.-]*\/[a-z0-9][a-z0-9_.-]*)\/([A-Za-z0-9-]{8,64})$/i;
const ENDPOINT = /^([a-z0-9][a-z0-9_.-]*)\/([a-z0-9][a-z0-9_.-]*)(?:\/[a-z0-9][a-z0-9_.-]*)*$/i;
const TOKEN = /^[a-z][a-z0-9_]{0,47}$/;
/** Inputs Atelier fills: the only names a 422's message may repeat. */
const KNOWN_INPUTS = new Set([
  'prompt',
  'image_size',
  'aspect_ratio',
  'resolution',
  'image_urls',
  'image_url',
  'seed',
  'num_images',
  'upscale_factor',
  'scale',
]);

const fail = failureFactory('fal');
const invalid = (message: string) => fail(message, { retryable: false, cause: 'invalid_request' });

/** `owner/app` of an endpoint id (the queue's status and result paths drop the sub-path). */
function appOf(endpoint: string): string | undefined {
  const match = ENDPOINT.exec(endpoint);
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/** The last progress a runner logged: `NN%` or `k/N` (tqdm bars), 0-1. */
function loggedFraction(logs: unknown): number | undefined {
  if (!Array.isArray(logs)) return undefined;
  for (const entry of [...logs].reverse()) {
    const message = isRecord(entry) && typeof entry.message === 'string' ? entry.message : '';
    const percent = /(\d{1,3})%/.exec(message);
    if (percent) return Math.min(1, Number(percent[1]) / 100);
    const steps = /\b(\d{1,5})\/(\d{1,5})\b/.exec(message);
    if (steps && Number(steps[2]) > 0) return Math.min(1, Number(steps[1]) / Number(steps[2]));
  }
  return undefined;
}

/** The sentence of an error answer: a 422's input names Atelier fills, else the status's. */
function errorSentence(status: number, json: unknown): string {
  const detail = isRecord(json) && Array.isArray(json.detail) ? json.detail : [];
  const named = detail.flatMap((item) =>
    isRecord(item) && Array.isArray(item.loc)
      ? item.loc.filter((part) => typeof part === 'string' && KNOWN_INPUTS.has(part))
      : [],
  );
  if (status !== 422 || named.length === 0) return statusSentence(status);
  return `the upstream refused input ${[...new Set(named)].join(', ')}; check the catalog's falEndpoints entry against the endpoint's inputs`;
}

/** What one fal adapter was built with: the settled options its calls read. */
interface FalSettings {
  baseUrl: string;
  endpoints: Record<string, FalEndpoint> | undefined;
  dispatcher: Dispatcher;
  now: () => number;
  timeoutMs: number;
  maxInlineBytes: number;
}

/** One call to fal's queue, the key in `Authorization: Key …`, a body sent as JSON. */
function call(
  settings: FalSettings,
  apiKey: string,
  path: string,
  method: 'GET' | 'POST' | 'PUT',
  signal: AbortSignal,
  body?: unknown,
): Promise<UpstreamAnswer> {
  return callUpstream({
    url: `${settings.baseUrl}/${path}`,
    method,
    headers: {
      authorization: `Key ${apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    timeoutMs: settings.timeoutMs,
    signal,
    dispatcher: settings.dispatcher,
  });
}

/** An error answer as a failure; `final` for a finished request's result (its 500 is the endpoint's). */
function errorFailure(
  settings: FalSettings,
  answer: Extract<UpstreamAnswer, { kind: 'response' }>,
  final = false,
): ProviderFailure {
  const { status, headers, body } = answer;
  const json = parseJson(body);
  const header = headers.get('x-fal-error-type') ?? '';
  const type = TOKEN.test(header) ? header : undefined;
  if (status === 404)
    return fail(
      httpFailureText(status, [type], 'the endpoint does not exist upstream; check the catalog entry'),
      {
        retryable: false,
        cause: 'model_not_found',
      },
    );
  const { retryable, cause } = statusClass(status);
  const failure = fail(httpFailureText(status, [type], errorSentence(status, json)), {
    retryable: final ? retryable && status !== 500 : retryable,
    cause: status === 402 ? 'quota_exhausted' : cause,
  });
  if (status === 402) failure.retryable = false;
  if (status === 429 || status === 503) {
    const wait = retryAfterMs(headers, settings.now());
    if (wait !== undefined) failure.retryAfterMs = wait;
  }
  return failure;
}

const noKey = () =>
  fail('no API key is configured for this account or deployment', {
    retryable: false,
    cause: 'unauthorized',
  });

/** Enqueues the request on the endpoint (the edit endpoint for edits, where the catalog names one). */
async function submit(settings: FalSettings, request: ProviderRequest): Promise<SubmitOutcome> {
  if (!request.apiKey) return noKey();
  const shape = settings.endpoints?.[request.upstreamModel] ?? DEFAULT_FAL_ENDPOINT;
  // Edits and fusions go to the app's edit endpoint where the catalog names one.
  const endpoint = request.mode !== 'text' && shape.editEndpoint ? shape.editEndpoint : request.upstreamModel;
  const app = appOf(endpoint);
  if (!app) return invalid(`"${endpoint}" is not a fal endpoint id (owner/app[/path])`);
  const input = await falInput(request, shape, settings.maxInlineBytes);
  if (typeof input === 'string') return invalid(input);
  const answer = await call(settings, request.apiKey, endpoint, 'POST', request.signal, input);
  if (answer.kind === 'transport_error') return transportFailure('fal', answer);
  if (answer.status < 200 || answer.status >= 300) {
    const failure = errorFailure(settings, answer);
    return answer.status >= 500 ? { ...failure, maybeAccepted: true } : failure;
  }
  const json = parseJson(answer.body);
  if (!isRecord(json) || typeof json.request_id !== 'string' || !REQUEST_ID.test(json.request_id))
    return fail('the submit answer holds no request id', {
      retryable: true,
      maybeAccepted: true,
      cause: 'bad_response',
    });
  return { kind: 'pending', upstreamId: `${app}/${json.request_id}`, progress: 0 };
}

/** A completed request's result: its first image (a URL, or a data URL's bytes), or why there is none. */
async function result(
  settings: FalSettings,
  apiKey: string,
  path: string,
  signal: AbortSignal,
): Promise<PollOutcome> {
  const answer = await call(settings, apiKey, path, 'GET', signal);
  if (answer.kind === 'transport_error') return { ...transportFailure('fal', answer), maybeAccepted: false };
  // The request is over: its error status is the endpoint's answer, final unless fal's gateway failed.
  if (answer.status < 200 || answer.status >= 300) return errorFailure(settings, answer, true);
  const json = parseJson(answer.body);
  // Image models answer `images: [{url}]`; image tools (upscalers, background removers) `image: {url}`.
  const images =
    isRecord(json) && Array.isArray(json.images)
      ? json.images
      : isRecord(json) && isRecord(json.image)
        ? [json.image]
        : [];
  const first = images[0];
  const nsfw = isRecord(json) && Array.isArray(json.has_nsfw_concepts) && json.has_nsfw_concepts[0] === true;
  if (nsfw)
    return fail("the endpoint's safety checker flagged the result; change the prompt or the images", {
      retryable: false,
      cause: 'blocked',
    });
  if (!isRecord(first) || typeof first.url !== 'string' || !/^(https?:\/\/|data:image\/)/.test(first.url))
    return fail('the result holds no image URL (images[0].url)', {
      retryable: false,
      cause: 'bad_response',
    });
  if (first.url.startsWith('data:')) {
    const bytes = Buffer.from(first.url.slice(first.url.indexOf(',') + 1), 'base64');
    return { kind: 'done', image: { bytes } };
  }
  return { kind: 'done', image: { url: first.url } };
}

/** Where a status answer leaves the task; `completed` reads the result or the run's failure. */
function statusOutcome(
  status: Record<string, unknown>,
  requestId: string | undefined,
  completed: () => Promise<PollOutcome>,
): PollOutcome | Promise<PollOutcome> {
  switch (status.status) {
    case 'IN_QUEUE': {
      // fal's queue position (0 = next) is the task's wait (queue_position, 1 = next), and its
      // progress while queued: 1 at the back (10th or later) … 10 at the front.
      const known = typeof status.queue_position === 'number' && status.queue_position >= 0;
      const position = known ? Math.floor(status.queue_position as number) : 9;
      return {
        kind: 'pending',
        status: 'queued',
        progress: Math.max(1, 10 - Math.min(9, position)),
        ...(known && { queuePosition: position + 1 }),
      };
    }
    case 'IN_PROGRESS': {
      const fraction = loggedFraction(status.logs);
      return { kind: 'pending', status: 'in_progress', progress: 10 + Math.floor(89 * (fraction ?? 0)) };
    }
    case 'COMPLETED': {
      const type =
        typeof status.error_type === 'string' && TOKEN.test(status.error_type) ? ` ${status.error_type}` : '';
      if (status.error !== undefined && status.error !== null)
        return fail(`request ${requestId} failed while running (fal error${type})`, {
          retryable: false,
          cause: 'upstream_error',
        });
      return completed();
    }
    default:
      return fail('the status answer has a status Atelier does not know', {
        retryable: true,
        cause: 'bad_response',
      });
  }
}

/** Reads the request's status (with its logs, for progress); a completed one's result. */
async function poll(
  settings: FalSettings,
  request: ProviderRequest & { upstreamId: string },
): Promise<PollOutcome> {
  const { apiKey } = request;
  if (!apiKey) return noKey();
  const id = UPSTREAM_ID.exec(request.upstreamId);
  if (!id) return invalid(`"${request.upstreamId}" is not a fal request`);
  const path = `${id[1]}/requests/${id[2]}`;
  const answer = await call(settings, apiKey, `${path}/status?logs=1`, 'GET', request.signal);
  // A status read only reads: "maybe accepted" means nothing here.
  if (answer.kind === 'transport_error') return { ...transportFailure('fal', answer), maybeAccepted: false };
  if (answer.status === 404) return invalid(`request ${id[2]} not found upstream`);
  if (answer.status < 200 || answer.status >= 300) return errorFailure(settings, answer);
  const status = parseJson(answer.body);
  if (!isRecord(status) || typeof status.status !== 'string')
    return fail('the status answer is unreadable', { retryable: true, cause: 'bad_response' });
  return statusOutcome(status, id[2], () => result(settings, apiKey, path, request.signal));
}

/** Creates the fal adapter. */
export function createFalProvider(options: FalProviderOptions = {}): ImageProvider {
  const baseUrl = (options.baseUrl ?? 'https://queue.fal.run').replace(/\/+$/, '');
  // The model search is on fal's Platform API; a base URL set for a proxy (or a test) serves both.
  const platformUrl = options.baseUrl ? baseUrl : 'https://api.fal.ai';
  const settings: FalSettings = {
    baseUrl,
    endpoints: options.endpoints,
    dispatcher: options.dispatcher ?? createUpstreamDispatcher(),
    now: options.now ?? Date.now,
    timeoutMs: options.requestTimeoutMs ?? 30_000,
    maxInlineBytes: options.maxInlineBytes ?? 10_000_000,
  };
  const { dispatcher } = settings;

  return {
    name: 'fal',
    requiresKey: true,
    submitsInline: true,
    ...(options.pollIntervalMs !== undefined && { pollIntervalMs: options.pollIntervalMs }),
    expectedDurationMs: () => 15_000,
    submit: (request) => submit(settings, request),
    poll: (request) => poll(settings, request),
    checkModels: (models, apiKey, signal) =>
      falModelPresence(models, { baseUrl: platformUrl, apiKey, signal, dispatcher }),
    async cancel({ upstreamId, apiKey, signal }) {
      const id = UPSTREAM_ID.exec(upstreamId);
      if (!apiKey || !id) return;
      await call(settings, apiKey, `${id[1]}/requests/${id[2]}/cancel`, 'PUT', signal);
    },
  };
}
