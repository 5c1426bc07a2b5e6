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
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Dispatcher } from 'undici';
import type {
  ImageProvider,
  PollOutcome,
  ProviderFailure,
  ProviderRequest,
  SubmitOutcome,
} from './provider.js';
import { httpFailureText, statusSentence } from './upstream-error-text.js';
import {
  assertNever,
  callUpstream,
  createUpstreamDispatcher,
  failureFactory,
  fitReferences,
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

const STATUSES = ['starting', 'processing', 'succeeded', 'failed', 'canceled', 'aborted'] as const;
type PredictionStatus = (typeof STATUSES)[number];

/** Least wait before reconciling a create whose answer was lost. */
const RECONCILE_DELAY_MS = 10_000;
const PREDICTION_ID = /^[a-z0-9]{6,64}$/i;
const MODEL_REF = /^([a-z0-9][a-z0-9_.-]*)\/([a-z0-9][a-z0-9_.-]*)(?::([a-z0-9]{8,128}))?$/i;

/** Inputs the adapter knows how to fill, in order of preference. */
const SIZE_INPUTS = ['resolution', 'image_size', 'size', 'output_resolution'];
const ARRAY_REFERENCE_INPUTS = ['image_input', 'input_images', 'images', 'image_inputs'];
const SINGLE_REFERENCE_INPUTS = ['input_image', 'image'];
const ACCEPTED_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

interface InputField {
  type?: string;
  enum?: unknown[];
  format?: string;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
}

interface ModelInputs {
  fields: Record<string, InputField>;
  required: string[];
}

interface ModelRef {
  owner: string;
  name: string;
  version?: string;
}

interface BuiltInput {
  input: Record<string, unknown>;
  /** Inputs holding data URLs: Replicate does not echo them back verbatim, so matching skips them. */
  fileKeys: string[];
  seeded: boolean;
}

/** A seed derived from the task id: stable across resubmits, distinct between tasks. */
export function seedForTask(taskId: string, field: InputField = {}): number {
  const raw = createHash('sha256').update(taskId).digest().readUInt32BE(0) & 0x7fffffff;
  const min = field.minimum ?? 0;
  const max = field.maximum ?? 2 ** 31 - 1;
  return max >= min ? min + (raw % (max - min + 1)) : raw;
}

/** Reads `components.schemas.Input` of a Cog OpenAPI schema, resolving `$ref`/`allOf` enums. */
function readInputSchema(openapi: unknown): ModelInputs | undefined {
  if (!isRecord(openapi) || !isRecord(openapi.components) || !isRecord(openapi.components.schemas))
    return undefined;
  const schemas = openapi.components.schemas;
  const input = schemas.Input;
  if (!isRecord(input) || !isRecord(input.properties)) return undefined;
  const resolve = (node: unknown, depth = 0): Record<string, unknown> => {
    if (!isRecord(node) || depth > 4) return {};
    let merged: Record<string, unknown> = { ...node };
    const refs: unknown[] = [];
    if (typeof node.$ref === 'string') refs.push(node.$ref);
    if (Array.isArray(node.allOf)) refs.push(...node.allOf);
    for (const ref of refs) {
      const target =
        typeof ref === 'string'
          ? schemas[ref.replace('#/components/schemas/', '')]
          : isRecord(ref) && typeof ref.$ref === 'string'
            ? schemas[ref.$ref.replace('#/components/schemas/', '')]
            : ref;
      merged = { ...resolve(target, depth + 1), ...merged };
    }
    return merged;
  };
  const fields: Record<string, InputField> = {};
  for (const [key, raw] of Object.entries(input.properties)) {
    const node = resolve(raw);
    fields[key] = {
      type: typeof node.type === 'string' ? node.type : undefined,
      enum: Array.isArray(node.enum) ? node.enum : undefined,
      format: typeof node.format === 'string' ? node.format : undefined,
      maxItems: typeof node.maxItems === 'number' ? node.maxItems : undefined,
      minimum: typeof node.minimum === 'number' ? node.minimum : undefined,
      maximum: typeof node.maximum === 'number' ? node.maximum : undefined,
    };
  }
  const required = Array.isArray(input.required)
    ? input.required.filter((r): r is string => typeof r === 'string')
    : [];
  return { fields, required };
}

function defaultExpectedDurationMs(): number {
  return 20_000;
}

/** The last `NN%` in a prediction's logs (tqdm-style progress bars), if any. */
function progressFromLogs(logs: unknown): number | undefined {
  if (typeof logs !== 'string') return undefined;
  const matches = [...logs.matchAll(/(\d{1,3})%/g)];
  const last = matches.at(-1)?.[1];
  if (last === undefined) return undefined;
  const value = Number(last);
  return value >= 0 && value <= 100 ? Math.min(99, value) : undefined;
}

/** The first URL in a prediction output (a string, or a list of them for multi-image models). */
function firstUrl(output: unknown): string | undefined {
  if (typeof output === 'string') return /^https?:\/\//.test(output) ? output : undefined;
  if (Array.isArray(output)) {
    for (const item of output) {
      const url = firstUrl(item);
      if (url) return url;
    }
  }
  if (isRecord(output)) {
    for (const value of Object.values(output)) {
      const url = firstUrl(value);
      if (url) return url;
    }
  }
  return undefined;
}

/** Inputs the adapter fills: the only names a refusal's message may repeat. */
const KNOWN_INPUTS: ReadonlySet<string> = new Set([
  'prompt',
  'aspect_ratio',
  'seed',
  ...SIZE_INPUTS,
  ...ARRAY_REFERENCE_INPUTS,
  ...SINGLE_REFERENCE_INPUTS,
]);

/** The sentence for an HTTP failure; for a 422, naming the known inputs Replicate's detail refers to. */
function refusedInputs(status: number, json: unknown): string {
  const detail = isRecord(json) && typeof json.detail === 'string' ? json.detail : '';
  const named = [...detail.matchAll(/input\.([a-z0-9_]+)/gi)]
    .map((m) => m[1] ?? '')
    .filter((name) => KNOWN_INPUTS.has(name));
  if (status !== 422 || named.length === 0) return statusSentence(status);
  return `the upstream refused input ${[...new Set(named)].join(', ')}; check the catalog entry against the model's inputs`;
}

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

  async function buildInput(
    request: ProviderRequest,
    model: string,
    inputs: ModelInputs,
  ): Promise<BuiltInput | string> {
    const { fields } = inputs;
    if (!fields.prompt) return `${model} takes no prompt input`;
    const input: Record<string, unknown> = { prompt: request.prompt };
    const fileKeys: string[] = [];

    const aspectField = fields.aspect_ratio;
    if (aspectField) {
      if (aspectField.enum && !aspectField.enum.includes(request.aspect)) {
        return `${model} does not take aspect ${request.aspect} (aspect_ratio: ${aspectField.enum.join(', ')}); fix its catalog entry`;
      }
      input.aspect_ratio = request.aspect;
    } else if (request.aspect !== '1:1') {
      return `${model} has no aspect_ratio input, so it cannot make ${request.aspect}; list only "1:1" in its catalog entry`;
    }

    const sizeKey = SIZE_INPUTS.find((key) =>
      fields[key]?.enum?.some((v) => typeof v === 'string' && /^[124]k$/i.test(v)),
    );
    if (sizeKey) {
      const values = fields[sizeKey]?.enum ?? [];
      const value = values.find((v) => typeof v === 'string' && v.toUpperCase() === request.imageSize);
      if (value === undefined) {
        return `${model} does not make ${request.imageSize} images (${sizeKey}: ${values.join(', ')}); fix its catalog entry`;
      }
      input[sizeKey] = value;
    } else if (request.imageSize !== '1K') {
      return `${model} has no resolution input and makes ~1K images; its catalog entry must list sizes ["1K"] only (asked for ${request.imageSize})`;
    }

    if (request.mode !== 'text') {
      const arrayKey = ARRAY_REFERENCE_INPUTS.find((key) => fields[key]?.type === 'array');
      const singleKey = SINGLE_REFERENCE_INPUTS.find((key) => fields[key]?.type === 'string');
      const key = request.mode === 'fusion' ? arrayKey : (arrayKey ?? singleKey);
      if (!key) {
        return request.mode === 'fusion'
          ? `${model} takes at most one reference image, so it cannot do fusion; remove "fusion" from its catalog entry`
          : `${model} takes no reference image, so it cannot edit; remove "edit" from its catalog entry`;
      }
      const maxItems = fields[key]?.maxItems;
      if (maxItems !== undefined && request.references.length > maxItems) {
        return `${model} takes at most ${maxItems} reference images (${request.references.length} given); lower maxReferences in its catalog entry`;
      }
      const fitted = await fitReferences(request.references, {
        acceptedTypes: ACCEPTED_TYPES,
        budgetBytes: maxInlineBytes,
      });
      if ('error' in fitted) return fitted.error;
      const urls = fitted.map(
        (image) => `data:${image.contentType};base64,${image.bytes.toString('base64')}`,
      );
      input[key] = key === arrayKey ? urls : urls[0];
      fileKeys.push(key);
    }

    const seedField = fields.seed;
    const seeded = seedField?.type === 'integer';
    if (seeded) input.seed = seedForTask(request.taskId, seedField);

    const missing = inputs.required.filter((key) => !(key in input));
    if (missing.length > 0) return `${model} requires inputs Atelier does not provide: ${missing.join(', ')}`;
    return { input, fileKeys, seeded };
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
      const built = await buildInput(request, model, inputs);
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
      return mapPrediction(status as PredictionStatus, prediction, request);
    },

    async cancel({ upstreamId, apiKey, signal }) {
      if (!apiKey || !PREDICTION_ID.test(upstreamId)) return;
      await call(apiKey, `${baseUrl}/v1/predictions/${upstreamId}/cancel`, 'POST', signal);
    },
  };

  function mapPrediction(
    status: PredictionStatus,
    prediction: Record<string, unknown>,
    request: ProviderRequest & { upstreamId: string },
  ): PollOutcome {
    const id = request.upstreamId;
    switch (status) {
      case 'starting':
        return { kind: 'pending', status: 'queued' };
      case 'processing': {
        const fromLogs = progressFromLogs(prediction.logs);
        if (fromLogs !== undefined) return { kind: 'pending', status: 'in_progress', progress: fromLogs };
        const startedAt =
          typeof prediction.started_at === 'string' ? Date.parse(prediction.started_at) : Number.NaN;
        const duration = provider.expectedDurationMs(request);
        const estimate = Number.isNaN(startedAt)
          ? undefined
          : Math.min(90, Math.floor(((now() - startedAt) / duration) * 90));
        return estimate === undefined
          ? { kind: 'pending', status: 'in_progress' }
          : { kind: 'pending', status: 'in_progress', progress: Math.max(1, estimate) };
      }
      case 'succeeded': {
        if (prediction.data_removed === true) {
          return fail(`the output of prediction ${id} was already deleted by Replicate`, {
            retryable: false,
            cause: 'invalid_request',
          });
        }
        const url = firstUrl(prediction.output);
        if (!url)
          return fail(`prediction ${id} succeeded without an image URL`, {
            retryable: false,
            cause: 'bad_response',
          });
        return { kind: 'done', image: { url } };
      }
      case 'failed': {
        // The model's error text is read to classify, never copied (see upstream-error-text.ts).
        const error = typeof prediction.error === 'string' ? prediction.error : '';
        const blocked = /nsfw|sensitive|safety|flagged|moderation/i.test(error);
        const why = blocked
          ? "the model's safety checker refused the prompt or the result; change the prompt or the images"
          : 'the model reported an error while running';
        return fail(`prediction ${id} failed: ${why}`, {
          retryable: false,
          cause: blocked ? 'blocked' : 'upstream_error',
        });
      }
      case 'canceled':
        return fail(`prediction ${id} was canceled upstream`, { retryable: false, cause: 'canceled' });
      case 'aborted':
        return fail(`prediction ${id} reached its deadline before it started`, {
          retryable: false,
          cause: 'timeout',
        });
      default:
        return assertNever(status, 'prediction status');
    }
  }

  if (options.pollIntervalMs !== undefined)
    Object.assign(provider, { pollIntervalMs: options.pollIntervalMs });
  return provider;
}
