/**
 * Replicate predictions, a truly asynchronous upstream: `submit` creates a prediction and answers
 * `pending` with its id; the engine then polls it; the result is handed over as `{url}` and the
 * engine copies it at once (Replicate deletes outputs after an hour).
 *
 * Wire format checked against (2026):
 * - https://replicate.com/docs/reference/http and replicate/replicate-python-beta (generated from
 *   the OpenAPI spec): `POST /v1/models/{owner}/{name}/predictions {input}` (official models and
 *   latest versions), `POST /v1/predictions {version, input}` (pinned versions),
 *   `GET /v1/predictions/{id}`, `POST /v1/predictions/{id}/cancel`,
 *   `GET /v1/predictions?created_after=…` (newest first, 100 per page, `next` cursor URL, each
 *   result with `input`, `model`, `version`, `source`), `GET /v1/models/{owner}/{name}`
 *   (`latest_version.openapi_schema`) and `…/versions/{id}` (`openapi_schema`); files as data URLs
 *   in `input` (the official JS client allows 10 MB of them).
 * - https://replicate.com/docs/topics/predictions/lifecycle — statuses `starting`, `processing`,
 *   `succeeded`, `failed`, `canceled`, `aborted`; optional `Cancel-After` deadline header.
 * - Errors are problem documents `{title, detail, status}`; 429 carries `Retry-After`.
 *
 * Inputs differ per model (`image_input` array vs `input_image`, `resolution` vs none…), so the
 * adapter reads each model's input schema once (cached) and maps onto it: `prompt`,
 * `aspect_ratio`, a `resolution`/`size`-like enum of 1K/2K/4K, the reference input, and `seed`.
 * A request the model cannot express fails the task with a message naming the catalog fix; nothing
 * is silently dropped.
 *
 * Reconciliation (never two predictions for one task): a create whose answer was lost (timeout,
 * reset, gateway error, unreadable 2xx) is reported `maybeAccepted: true` and remembered. The next
 * submit of that task (flagged `reconcile: true` by the engine, or remembered by this process)
 * first lists the account's predictions of the last hour and adopts the one created for this task
 * instead of creating another. A prediction is recognised by its model and its exact non-file
 * input; where the model takes a `seed`, the adapter derives it from the task id, which makes the
 * input unique per task. Without a seed, identical sibling tasks are told apart only by the
 * predictions this process already knows belong to other tasks (documented in docs/providers.md).
 *
 * Model inputs (schema, mapping, seed) live in replicate-inputs.ts, prediction states in
 * replicate-predictions.ts; this file is the HTTP adapter and reconciliation.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Dispatcher } from 'undici';
import type {
  ImageProvider,
  PollOutcome,
  ProviderFailure,
  ProviderRequest,
  SubmitOutcome,
} from './provider.js';
import {
  type BuiltInput,
  buildInput,
  type ModelInputs,
  readInputSchema,
  refusedInputs,
} from './replicate-inputs.js';
import { mapPrediction, type PredictionStatus, STATUSES } from './replicate-predictions.js';
import { httpFailureText } from './upstream-error-text.js';
import {
  callUpstream,
  createUpstreamDispatcher,
  failureFactory,
  isRecord,
  parseJson,
  retryAfterMs,
  statusClass,
  transportFailure,
  type UpstreamAnswer,
} from './upstream-http.js';

export interface ReplicateProviderOptions {
  baseUrl?: string;
  /** Deadline of one HTTP call (create, get, list); predictions themselves run for longer. */
  requestTimeoutMs?: number;
  expectedDurationMs?: number | ((request: Pick<ProviderRequest, 'upstreamModel' | 'imageSize'>) => number);
  /** Base64 budget of reference images sent as data URLs in one create (default 10 MB). */
  maxInlineBytes?: number;
  /** How far back reconciliation looks for a lost prediction (default 1 hour: outputs expire then). */
  reconcileWindowMs?: number;
  /** Most list pages reconciliation reads (100 predictions each). */
  maxListPages?: number;
  /** How long a model's input schema is trusted before it is read again (default 1 hour). */
  schemaTtlMs?: number;
  /** Sent as `Cancel-After` so that abandoned predictions stop on their own, e.g. `30m`. */
  cancelAfter?: string;
  pollIntervalMs?: number;
  dispatcher?: Dispatcher;
  now?: () => number;
}

/** Least wait before reconciling a create whose answer was lost. */
const RECONCILE_DELAY_MS = 10_000;
const PREDICTION_ID = /^[a-z0-9]{6,64}$/i;
const MODEL_REF = /^([a-z0-9][a-z0-9_.-]*)\/([a-z0-9][a-z0-9_.-]*)(?::([a-z0-9]{8,128}))?$/i;

function defaultExpectedDurationMs(): number {
  return 20_000;
}

interface ModelRef {
  owner: string;
  name: string;
  version?: string;
}

export { seedForTask } from './replicate-inputs.js';

/** Creates the Replicate adapter. */
export function createReplicateProvider(options: ReplicateProviderOptions = {}): ImageProvider {
  const baseUrl = (options.baseUrl ?? 'https://api.replicate.com').replace(/\/+$/, '');
  const origin = new URL(baseUrl).origin;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const maxInlineBytes = options.maxInlineBytes ?? 10_000_000;
  const reconcileWindowMs = options.reconcileWindowMs ?? 60 * 60_000;
  const maxListPages = options.maxListPages ?? 10;
  const schemaTtlMs = options.schemaTtlMs ?? 60 * 60_000;
  const dispatcher = options.dispatcher ?? createUpstreamDispatcher();
  const now = options.now ?? Date.now;
  const expected = options.expectedDurationMs ?? defaultExpectedDurationMs;

  const schemas = new Map<string, { inputs: ModelInputs; fetchedAt: number }>();
  /** Tasks whose create may have been accepted, by task id (this process's memory). */
  const maybeAccepted = new Map<string, number>();
  /** Prediction id → task id for predictions this process created or adopted. */
  const claims = new Map<string, string>();

  const remember = <K, V>(map: Map<K, V>, key: K, value: V, limit = 10_000) => {
    map.delete(key);
    map.set(key, value);
    if (map.size > limit) {
      const oldest = map.keys().next();
      if (!oldest.done) map.delete(oldest.value);
    }
  };

  const fail = failureFactory('Replicate');

  const call = (
    apiKey: string,
    url: string,
    method: 'GET' | 'POST',
    signal: AbortSignal,
    body?: unknown,
    extra = {},
  ) =>
    callUpstream({
      url,
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...extra,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: requestTimeoutMs,
      signal,
      dispatcher,
    });

  function errorFailure(answer: Extract<UpstreamAnswer, { kind: 'response' }>): ProviderFailure {
    const { status, headers, body } = answer;
    const { retryable, cause } = statusClass(status);
    // Only allow-listed fields reach the message (see upstream-error-text.ts): for a refused input,
    // the names of the inputs Atelier fills, as Replicate's detail lists them; never its free text.
    const failure = fail(httpFailureText(status, [], refusedInputs(status, parseJson(body))), {
      retryable: status === 402 ? false : retryable,
      cause: status === 402 ? 'rate_limited' : cause,
    });
    if (status === 429 || status === 503) {
      const wait = retryAfterMs(headers, now());
      if (wait !== undefined) failure.retryAfterMs = wait;
    }
    return failure;
  }

  async function loadInputs(
    ref: ModelRef,
    apiKey: string,
    signal: AbortSignal,
  ): Promise<ModelInputs | ProviderFailure> {
    const key = `${ref.owner}/${ref.name}:${ref.version ?? 'latest'}`;
    const cached = schemas.get(key);
    if (cached && now() - cached.fetchedAt < schemaTtlMs) return cached.inputs;
    const path = ref.version
      ? `/v1/models/${ref.owner}/${ref.name}/versions/${ref.version}`
      : `/v1/models/${ref.owner}/${ref.name}`;
    const answer = await call(apiKey, `${baseUrl}${path}`, 'GET', signal);
    if (answer.kind === 'transport_error')
      return { ...transportFailure('Replicate', answer), maybeAccepted: false };
    if (answer.status === 404) {
      return fail(`model ${key.replace(/:latest$/, '')} not found (HTTP 404)`, {
        retryable: false,
        cause: 'invalid_request',
      });
    }
    if (answer.status < 200 || answer.status >= 300) return errorFailure(answer);
    const json = parseJson(answer.body);
    const openapi = isRecord(json)
      ? ref.version
        ? json.openapi_schema
        : isRecord(json.latest_version)
          ? json.latest_version.openapi_schema
          : undefined
      : undefined;
    const inputs = readInputSchema(openapi);
    if (!inputs)
      return fail(`cannot read the input schema of ${key}`, { retryable: true, cause: 'bad_response' });
    remember(schemas, key, { inputs, fetchedAt: now() }, 500);
    return inputs;
  }

  /**
   * Looks for the prediction an earlier, lost create made for this task. Returns its id, null when
   * there is none, or a failure when the upstream cannot be asked right now.
   */
  async function findLostPrediction(
    request: ProviderRequest,
    ref: ModelRef,
    built: BuiltInput,
    apiKey: string,
  ): Promise<string | null | ProviderFailure> {
    const createdAfter = new Date(now() - reconcileWindowMs).toISOString();
    let url: string | null = `${baseUrl}/v1/predictions?created_after=${encodeURIComponent(createdAfter)}`;
    const matches: Array<{ id: string; createdAt: string; status: unknown }> = [];
    for (let page = 0; url && page < maxListPages; page++) {
      const answer = await call(apiKey, url, 'GET', request.signal);
      if (answer.kind === 'transport_error')
        return { ...transportFailure('Replicate', answer), maybeAccepted: true };
      if (answer.status < 200 || answer.status >= 300)
        return { ...errorFailure(answer), maybeAccepted: true };
      const json = parseJson(answer.body);
      if (!isRecord(json) || !Array.isArray(json.results)) {
        return fail('the prediction list is unreadable', {
          retryable: true,
          maybeAccepted: true,
          cause: 'bad_response',
        });
      }
      for (const p of json.results) {
        if (!isRecord(p) || typeof p.id !== 'string' || !isRecord(p.input)) continue;
        if (typeof p.model === 'string' && p.model.toLowerCase() !== `${ref.owner}/${ref.name}`.toLowerCase())
          continue;
        if (ref.version && typeof p.version === 'string' && p.version !== ref.version) continue;
        if (p.source === 'web') continue;
        const owner = claims.get(p.id);
        if (owner !== undefined && owner !== request.taskId) continue;
        const theirs = p.input;
        const same = Object.entries(built.input).every(
          ([key, value]) => built.fileKeys.includes(key) || isDeepStrictEqual(theirs[key], value),
        );
        if (same) matches.push({ id: p.id, createdAt: String(p.created_at ?? ''), status: p.status });
      }
      // With a task-derived seed every match is this task's own: the newest pages hold the lost
      // create, so reading on (each page one more call that can fail) gains nothing.
      if (built.seeded && matches.length > 0) break;
      // Only follow cursors on the configured origin: the token must not travel anywhere else.
      const next: unknown = json.next;
      url = typeof next === 'string' && next.startsWith(`${origin}/`) ? next : null;
    }
    if (matches.length === 0) return null;
    matches.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const [adopted, ...extra] = matches;
    if (built.seeded) {
      // With a task-derived seed the extras are certainly ours too: stop paying for them.
      for (const duplicate of extra) {
        if (duplicate.status === 'starting' || duplicate.status === 'processing') {
          await call(
            apiKey,
            `${baseUrl}/v1/predictions/${duplicate.id}/cancel`,
            'POST',
            request.signal,
          ).catch(() => undefined);
        }
      }
    }
    return adopted?.id ?? null;
  }

  function pendingFor(request: ProviderRequest, id: string): SubmitOutcome {
    maybeAccepted.delete(request.taskId);
    remember(claims, id, request.taskId);
    return { kind: 'pending', upstreamId: id, progress: 0 };
  }

  const provider: ImageProvider = {
    name: 'replicate',
    requiresKey: true,
    submitsInline: true,
    expectedDurationMs: (request) => (typeof expected === 'number' ? expected : expected(request)),

    async submit(request) {
      if (!request.apiKey) {
        return fail('no API token is configured for this account or deployment', {
          retryable: false,
          cause: 'unauthorized',
        });
      }
      const apiKey = request.apiKey;
      const match = MODEL_REF.exec(request.upstreamModel);
      if (!match?.[1] || !match[2]) {
        return fail(
          `"${request.upstreamModel}" is not a model reference (owner/name or owner/name:version)`,
          {
            retryable: false,
            cause: 'invalid_request',
          },
        );
      }
      const ref: ModelRef = { owner: match[1], name: match[2], version: match[3] };
      const model = `${ref.owner}/${ref.name}`;
      const inputs = await loadInputs(ref, apiKey, request.signal);
      if ('kind' in inputs) {
        // Nothing was created yet; but a task that may already hold a prediction stays flagged.
        return maybeAccepted.has(request.taskId) || request.reconcile
          ? { ...inputs, maybeAccepted: true }
          : inputs;
      }
      const built = await buildInput(request, model, inputs, maxInlineBytes);
      if (typeof built === 'string') return fail(built, { retryable: false, cause: 'invalid_request' });

      if (request.reconcile || maybeAccepted.has(request.taskId)) {
        const found = await findLostPrediction(request, ref, built, apiKey);
        if (found !== null && typeof found === 'object') return found;
        if (typeof found === 'string') return pendingFor(request, found);
      }

      const url = ref.version
        ? `${baseUrl}/v1/predictions`
        : `${baseUrl}/v1/models/${ref.owner}/${ref.name}/predictions`;
      const body = ref.version ? { version: ref.version, input: built.input } : { input: built.input };
      const extra = options.cancelAfter ? { 'cancel-after': options.cancelAfter } : {};
      const answer = await call(apiKey, url, 'POST', request.signal, body, extra);
      const lost = (failure: ProviderFailure): ProviderFailure => {
        if (!failure.maybeAccepted) return failure;
        remember(maybeAccepted, request.taskId, now());
        // A create the client gave up on may still be processed upstream a moment later: reconciling
        // at once could miss its prediction and create a second one.
        return { ...failure, retryAfterMs: Math.max(failure.retryAfterMs ?? 0, RECONCILE_DELAY_MS) };
      };
      if (answer.kind === 'transport_error') return lost(transportFailure('Replicate', answer));
      if (answer.status < 200 || answer.status >= 300) {
        const failure = errorFailure(answer);
        // A gateway error may hide a prediction that was created behind it.
        return lost([502, 504].includes(answer.status) ? { ...failure, maybeAccepted: true } : failure);
      }
      const json = parseJson(answer.body);
      if (!isRecord(json) || typeof json.id !== 'string' || !PREDICTION_ID.test(json.id)) {
        return lost(
          fail('the create answer holds no prediction id', {
            retryable: true,
            maybeAccepted: true,
            cause: 'bad_response',
          }),
        );
      }
      return pendingFor(request, json.id);
    },

    async poll(request): Promise<PollOutcome> {
      if (!request.apiKey) {
        return fail('no API token is configured for this account or deployment', {
          retryable: false,
          cause: 'unauthorized',
        });
      }
      if (!PREDICTION_ID.test(request.upstreamId)) {
        return fail(`"${request.upstreamId}" is not a prediction id`, {
          retryable: false,
          cause: 'invalid_request',
        });
      }
      const answer = await call(
        request.apiKey,
        `${baseUrl}/v1/predictions/${request.upstreamId}`,
        'GET',
        request.signal,
      );
      // A poll only reads: "maybe accepted" means nothing here, and must not limit its retries.
      if (answer.kind === 'transport_error')
        return { ...transportFailure('Replicate', answer), maybeAccepted: false };
      if (answer.status === 404) {
        return fail(`prediction ${request.upstreamId} not found`, {
          retryable: false,
          cause: 'invalid_request',
        });
      }
      if (answer.status < 200 || answer.status >= 300) return errorFailure(answer);
      const prediction = parseJson(answer.body);
      if (!isRecord(prediction) || typeof prediction.status !== 'string') {
        return fail('the prediction is unreadable', { retryable: true, cause: 'bad_response' });
      }
      const status = prediction.status;
      if (!(STATUSES as readonly string[]).includes(status)) {
        return fail('the prediction has a status Atelier does not know', {
          retryable: true,
          cause: 'bad_response',
        });
      }
      return mapPrediction(status as PredictionStatus, prediction, {
        id: request.upstreamId,
        expectedMs: provider.expectedDurationMs(request),
        now: now(),
      });
    },

    async cancel({ upstreamId, apiKey, signal }) {
      if (!apiKey || !PREDICTION_ID.test(upstreamId)) return;
      await call(apiKey, `${baseUrl}/v1/predictions/${upstreamId}/cancel`, 'POST', signal);
    },
  };

  if (options.pollIntervalMs !== undefined)
    Object.assign(provider, { pollIntervalMs: options.pollIntervalMs });
  return provider;
}
