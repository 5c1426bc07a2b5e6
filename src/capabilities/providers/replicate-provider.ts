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
 * Never two predictions for one task: a create whose answer was lost, or answered with any 5xx, is
 * reported `maybeAccepted: true`, and the next submit of that task adopts the prediction it made (replicate-reconcile.ts).
 *
 * This file is the adapter: submit, poll and cancel, composed from replicate-api.ts (calls, error
 * mapping, model schemas), replicate-schema.ts (the input schema and its `$ref`s),
 * replicate-inputs.ts (request → input, seed), replicate-reconcile.ts and replicate-predictions.ts
 * (prediction states → poll outcomes).
 */
import type { Dispatcher } from 'undici';
import { isOneOf } from '../../base/collections/closed-set.js';
import { replicateModelPresence } from './model-lists.js';
import type {
  ImageProvider,
  PollOutcome,
  ProviderFailure,
  ProviderRequest,
  SubmitOutcome,
} from './provider.js';
import {
  createReplicateApi,
  replicateFailure as fail,
  type ModelRef,
  PREDICTION_ID,
  parseModelRef,
  type ReplicateApi,
} from './replicate-api.js';
import { buildInput, buildToolInput, toolActionOf } from './replicate-inputs.js';
import { mapPrediction, STATUSES } from './replicate-predictions.js';
import { createReconciler, type Reconciler } from './replicate-reconcile.js';
import { createUpstreamDispatcher, transportFailure } from './upstream-call.js';
import { isRecord, parseJson } from './upstream-json.js';

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
const DEFAULT_EXPECTED_MS = 20_000;

const noToken = () =>
  fail('no API token is configured for this account or deployment', {
    retryable: false,
    cause: 'unauthorized',
  });

/** What one Replicate adapter was built with: its API, its reconciler and the settled options. */
interface ReplicateSettings {
  api: ReplicateApi;
  reconciler: Reconciler;
  maxInlineBytes: number;
  cancelAfter: string | undefined;
  now: () => number;
  expectedDurationMs: ImageProvider['expectedDurationMs'];
}

function pendingFor({ reconciler }: ReplicateSettings, request: ProviderRequest, id: string): SubmitOutcome {
  reconciler.claim(request.taskId, id);
  return { kind: 'pending', upstreamId: id, progress: 0 };
}

/** Reads the model's inputs, adopts a lost prediction of this task where there may be one, else creates one. */
async function submit(settings: ReplicateSettings, request: ProviderRequest): Promise<SubmitOutcome> {
  const { api, reconciler } = settings;
  if (!request.apiKey) return noToken();
  const apiKey = request.apiKey;
  const ref = parseModelRef(request.upstreamModel);
  if (!ref) {
    return fail(`"${request.upstreamModel}" is not a model reference (owner/name or owner/name:version)`, {
      retryable: false,
      cause: 'invalid_request',
    });
  }
  const model = `${ref.owner}/${ref.name}`;
  const mayHoldPrediction = () => request.reconcile || reconciler.mayHoldPrediction(request.taskId);
  const inputs = await api.loadInputs(ref, apiKey, request.signal);
  if ('kind' in inputs) {
    // Nothing was created yet; but a task that may already hold a prediction stays flagged.
    return mayHoldPrediction() ? { ...inputs, maybeAccepted: true } : inputs;
  }
  const tool = toolActionOf(request);
  const built = tool
    ? await buildToolInput(request, tool, model, inputs, settings.maxInlineBytes)
    : await buildInput(request, model, inputs, settings.maxInlineBytes);
  if (typeof built === 'string') return fail(built, { retryable: false, cause: 'invalid_request' });

  if (mayHoldPrediction()) {
    const found = await reconciler.findLostPrediction(request, ref, built, apiKey);
    if (found !== null && typeof found === 'object') return found;
    if (typeof found === 'string') return pendingFor(settings, request, found);
  }
  return createPrediction(settings, request, apiKey, ref, built.input);
}

/** Creates the prediction; a create that may have been accepted is remembered for reconciliation. */
async function createPrediction(
  settings: ReplicateSettings,
  request: ProviderRequest,
  apiKey: string,
  ref: ModelRef,
  input: Record<string, unknown>,
): Promise<SubmitOutcome> {
  const { api, reconciler } = settings;
  const path = ref.version ? '/v1/predictions' : `/v1/models/${ref.owner}/${ref.name}/predictions`;
  const body = ref.version ? { version: ref.version, input } : { input };
  const extra: Record<string, string> = settings.cancelAfter ? { 'cancel-after': settings.cancelAfter } : {};
  const answer = await api.call(apiKey, path, 'POST', request.signal, body, extra);
  const lost = (failure: ProviderFailure): ProviderFailure => {
    if (!failure.maybeAccepted) return failure;
    reconciler.markMaybeAccepted(request.taskId);
    // A create the client gave up on may still be processed upstream a moment later: reconciling
    // at once could miss its prediction and create a second one.
    return { ...failure, retryAfterMs: Math.max(failure.retryAfterMs ?? 0, RECONCILE_DELAY_MS) };
  };
  if (answer.kind === 'transport_error') return lost(transportFailure('Replicate', answer));
  if (answer.status < 200 || answer.status >= 300) {
    const failure = api.errorFailure(answer);
    // Any 5xx may hide a prediction created before the error (the official client never retries
    // a create on 5xx for that reason): the next submit reconciles before creating again.
    return lost(answer.status >= 500 ? { ...failure, maybeAccepted: true } : failure);
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
  return pendingFor(settings, request, json.id);
}

/** Reads the prediction and maps its state onto a poll outcome. */
async function poll(
  settings: ReplicateSettings,
  request: ProviderRequest & { upstreamId: string },
): Promise<PollOutcome> {
  if (!request.apiKey) return noToken();
  if (!PREDICTION_ID.test(request.upstreamId)) {
    return fail(`"${request.upstreamId}" is not a prediction id`, {
      retryable: false,
      cause: 'invalid_request',
    });
  }
  const path = `/v1/predictions/${request.upstreamId}`;
  const answer = await settings.api.call(request.apiKey, path, 'GET', request.signal);
  // A poll only reads: "maybe accepted" means nothing here, and must not limit its retries.
  if (answer.kind === 'transport_error')
    return { ...transportFailure('Replicate', answer), maybeAccepted: false };
  if (answer.status === 404) {
    return fail(`prediction ${request.upstreamId} not found`, {
      retryable: false,
      cause: 'invalid_request',
    });
  }
  if (answer.status < 200 || answer.status >= 300) return settings.api.errorFailure(answer);
  const prediction = parseJson(answer.body);
  if (!isRecord(prediction) || typeof prediction.status !== 'string') {
    return fail('the prediction is unreadable', { retryable: true, cause: 'bad_response' });
  }
  if (!isOneOf(STATUSES, prediction.status)) {
    return fail('the prediction has a status Atelier does not know', {
      retryable: true,
      cause: 'bad_response',
    });
  }
  return mapPrediction(prediction.status, prediction, {
    id: request.upstreamId,
    expectedMs: settings.expectedDurationMs(request),
    now: settings.now(),
  });
}

/** Creates the Replicate adapter. */
export function createReplicateProvider(options: ReplicateProviderOptions = {}): ImageProvider {
  const now = options.now ?? Date.now;
  const dispatcher = options.dispatcher ?? createUpstreamDispatcher();
  const api = createReplicateApi({
    baseUrl: (options.baseUrl ?? 'https://api.replicate.com').replace(/\/+$/, ''),
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    schemaTtlMs: options.schemaTtlMs ?? 60 * 60_000,
    dispatcher,
    now,
  });
  const reconciler = createReconciler(api, {
    windowMs: options.reconcileWindowMs ?? 60 * 60_000,
    maxListPages: options.maxListPages ?? 10,
    now,
  });
  const expected = options.expectedDurationMs ?? DEFAULT_EXPECTED_MS;
  const expectedDurationMs: ImageProvider['expectedDurationMs'] = (request) =>
    typeof expected === 'number' ? expected : expected(request);
  const settings: ReplicateSettings = {
    api,
    reconciler,
    maxInlineBytes: options.maxInlineBytes ?? 10_000_000,
    cancelAfter: options.cancelAfter,
    now,
    expectedDurationMs,
  };

  return {
    name: 'replicate',
    requiresKey: true,
    submitsInline: true,
    ...(options.pollIntervalMs !== undefined && { pollIntervalMs: options.pollIntervalMs }),
    expectedDurationMs,
    submit: (request) => submit(settings, request),
    poll: (request) => poll(settings, request),
    checkModels: (models, apiKey, signal) =>
      replicateModelPresence(models, { baseUrl: api.baseUrl, apiKey, signal, dispatcher }),
    async cancel({ upstreamId, apiKey, signal }) {
      if (!apiKey || !PREDICTION_ID.test(upstreamId)) return;
      await api.call(apiKey, `/v1/predictions/${upstreamId}/cancel`, 'POST', signal);
    },
  };
}
