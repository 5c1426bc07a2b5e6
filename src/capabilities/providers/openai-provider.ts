/**
 * OpenAI Images (`POST /v1/images/generations`, `POST /v1/images/edits`), a synchronous upstream:
 * `submit` makes the whole call and answers `done` with the decoded `b64_json` image.
 *
 * Wire format checked against (2026, openai-node 7.57 `src/resources/images.ts`, compared by test
 * with what that client sends): generations take JSON `{model, prompt, n, size[, quality]}`; edits
 * take multipart with one `image[]` part per input image (GPT image models take up to 16, which is
 * what fusion needs). GPT image models always answer `data[].b64_json` and refuse
 * `response_format`. The DALL·E models were retired on 2026-05-12 and are not supported.
 * - Error body `{error:{message,type,param,code}}`; a safety refusal is 400 `moderation_blocked`;
 *   an exhausted balance is 429 `insufficient_quota`, which no retry can fix; an unknown or shut-down
 *   model is 404 `model_not_found`.
 *
 * Sizes come from a per-model table (openai-sizes.ts): the GPT image 2 / 2.5 models take custom
 * sizes up to 3840x2160, so 1K, 2K and 4K are offered there; older GPT image models make only the
 * three ~1 megapixel standard sizes (1K).
 *
 * Retry safety: the Images API keeps no job and offers no idempotency key for images, so a call
 * that died after it was sent left nothing to recover; repeating it cannot duplicate a result,
 * only bill a second generation. Such failures carry `maybeAccepted: true` and the engine retries
 * them at most once.
 */
import type { Dispatcher } from 'undici';
import type { ImageSize } from '../../base/domain/image-sizes.js';
import { openAIModelPresence } from './model-lists.js';
import { ratioOf, referenceRatio, sizeFor } from './openai-sizes.js';
import type {
  ImageProvider,
  ImageUsage,
  ProviderFailure,
  ProviderRequest,
  SubmitOutcome,
} from './provider.js';
import { openAIQuota, openAIRefusal } from './rate-limits.js';
import { fitReferences } from './reference-fit.js';
import { sniffImageType } from './result-image.js';
import { retryAfterMs } from './retry-after.js';
import { callForJson, createUpstreamDispatcher, type FormData, newFormData } from './upstream-call.js';
import {
  allowedToken,
  httpFailureText,
  OPENAI_ERROR_CODES,
  OPENAI_ERROR_TYPES,
} from './upstream-error-text.js';
import { failureFactory, statusClass } from './upstream-failures.js';
import { isRecord, parseJson } from './upstream-json.js';

export interface OpenAIProviderOptions {
  baseUrl?: string;
  requestTimeoutMs?: number;
  expectedDurationMs?: number | ((request: Pick<ProviderRequest, 'upstreamModel' | 'imageSize'>) => number);
  /** `quality` for GPT image models; not sent when unset (the API default, `auto`). */
  quality?: 'auto' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';
  dispatcher?: Dispatcher;
  now?: () => number;
  /** An OpenAI-compatible server's name and quirks (openai-compatible-provider.ts); absent for OpenAI. */
  compatible?: CompatibleQuirks;
}

/** How an OpenAI-compatible server differs from OpenAI's Images API (declared in the catalog). */
export interface CompatibleQuirks {
  /** The provider name the catalog routes to (the upstream's name). */
  name: string;
  /** false for a server that takes no key (no `Authorization` header is sent). */
  keyed: boolean;
  /** The `size` to send for a request, or why the server cannot make it. */
  size(request: ProviderRequest): string | { error: string };
  /** Sent as `response_format`. */
  responseFormat: 'url' | 'b64_json';
  edits: boolean;
  masks: boolean;
  /** Extra body fields sent with every call (JSON values; multipart sends non-strings as JSON). */
  extraBody: Record<string, unknown>;
  /** Copies a `url` answer through the safe fetcher (the server's host allowed); a string says why not. */
  fetchUrl(url: string, signal: AbortSignal): Promise<Buffer | string>;
}

function defaultExpectedDurationMs({
  upstreamModel,
  imageSize,
}: Pick<ProviderRequest, 'upstreamModel' | 'imageSize'>): number {
  const base = /mini|flare/.test(upstreamModel) ? 20_000 : 45_000;
  const factor: Record<ImageSize, number> = { '1K': 1, '2K': 1.5, '4K': 2.5 };
  return Math.round(base * factor[imageSize]);
}

const ACCEPTED_TYPES = ['image/png', 'image/jpeg', 'image/webp'];
const EXTENSION: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** The answer's `usage` (GPT image models report tokens), when it is whole; never invented. */
export function usageOf(value: unknown): ImageUsage | undefined {
  if (!isRecord(value)) return undefined;
  const { input_tokens, output_tokens, total_tokens, input_tokens_details: details } = value;
  const counts = [input_tokens, output_tokens, total_tokens];
  if (!counts.every((count) => typeof count === 'number' && Number.isFinite(count))) return undefined;
  const usage: ImageUsage = {
    input_tokens: input_tokens as number,
    output_tokens: output_tokens as number,
    total_tokens: total_tokens as number,
  };
  if (isRecord(details)) {
    const { image_tokens: image = 0, text_tokens: text = 0 } = details;
    if (typeof image === 'number' && typeof text === 'number')
      usage.input_tokens_details = { image_tokens: image, text_tokens: text };
  }
  return usage;
}

/** What one OpenAI adapter was built with: the settled options its calls read. */
interface OpenAISettings {
  baseUrl: string;
  requestTimeoutMs: number;
  dispatcher: Dispatcher;
  now: () => number;
  quality: OpenAIProviderOptions['quality'];
  compatible: CompatibleQuirks | undefined;
  label: string;
  fail: ReturnType<typeof failureFactory>;
}

/** An error answer as a failure: a missing model, a refusal, no quota, or the status's class. */
function errorFailure(
  settings: OpenAISettings,
  model: string,
  status: number,
  headers: Headers,
  body: Buffer,
): ProviderFailure {
  const { fail, now } = settings;
  const json = parseJson(body);
  const error = isRecord(json) && isRecord(json.error) ? json.error : undefined;
  // Only allow-listed fields reach the message (see upstream-error-text.ts); free text never does.
  const code = allowedToken(error?.code, OPENAI_ERROR_CODES);
  const type = allowedToken(error?.type, OPENAI_ERROR_TYPES);
  const tokens = [code, type];
  if (code === 'model_not_found') {
    return fail(httpFailureText(status, tokens, `model ${model} not found upstream`), {
      retryable: false,
      cause: 'model_not_found',
    });
  }
  if (code === 'moderation_blocked' || code === 'content_policy_violation') {
    const sentence = 'the request was refused by the safety system; change the prompt or the images';
    return fail(httpFailureText(status, tokens, sentence), { retryable: false, cause: 'blocked' });
  }
  if (code === 'insufficient_quota' || type === 'insufficient_quota') {
    // A billing limit: retrying cannot succeed until someone adds credit.
    const sentence = 'the upstream account has no quota left; add credit or raise its limit';
    return fail(httpFailureText(status, tokens, sentence), { retryable: false, cause: 'quota_exhausted' });
  }
  const { retryable, cause } = statusClass(status);
  const failure = fail(httpFailureText(status, tokens), { retryable, cause });
  if (status === 429 || status === 503) {
    const wait = retryAfterMs(headers, now());
    if (wait !== undefined) failure.retryAfterMs = wait;
  }
  // The request budget on every refusal, and whether the refusal spent a per-minute budget.
  return status === 429 ? openAIRefusal(headers, failure, now()) : failure;
}

/** A successful answer read, with the request budget its headers report. */
function readImage(settings: OpenAISettings, json: unknown, headers: Headers): SubmitOutcome {
  const outcome = imageOf(settings, json);
  const quota = openAIQuota(headers, settings.now());
  // Read on every answer, not only on refusals: the pool paces its calls by the budget left.
  return quota && outcome.kind === 'done' ? { ...outcome, quota } : outcome;
}

/** The answer's first image (`b64_json`, or a `url`), or why there is none. */
function imageOf({ compatible, baseUrl, fail }: OpenAISettings, json: unknown): SubmitOutcome {
  const first = isRecord(json) && Array.isArray(json.data) ? json.data[0] : undefined;
  const usage = isRecord(json) ? usageOf(json.usage) : undefined;
  if (isRecord(first) && typeof first.b64_json === 'string') {
    const bytes = Buffer.from(first.b64_json, 'base64');
    const contentType = sniffImageType(bytes);
    if (contentType) return { kind: 'done', image: { bytes, contentType }, ...(usage ? { usage } : {}) };
  } else if (isRecord(first) && typeof first.url === 'string') {
    // A compatible server may answer a path on itself (`/generated-images/…`).
    const url = compatible && first.url.startsWith('/') ? `${baseUrl}${first.url}` : first.url;
    const scheme = compatible ? /^https?:\/\// : /^https:\/\//;
    if (scheme.test(url)) return { kind: 'done', image: { url }, ...(usage ? { usage } : {}) };
  }
  return fail('the answer holds no readable image (data[0].b64_json or data[0].url)', {
    retryable: true,
    maybeAccepted: true,
    cause: 'bad_response',
  });
}

/** A compatible server's `url` answer, copied at once (its URLs may be short-lived or local). */
async function fetched(
  { compatible, fail }: OpenAISettings,
  outcome: SubmitOutcome,
  signal: AbortSignal,
): Promise<SubmitOutcome> {
  if (!compatible || outcome.kind !== 'done' || !('url' in outcome.image)) return outcome;
  const bytes = await compatible.fetchUrl(outcome.image.url, signal);
  if (typeof bytes === 'string')
    return fail(bytes, { retryable: true, maybeAccepted: true, cause: 'network' });
  return { ...outcome, image: { bytes, contentType: sniffImageType(bytes) ?? 'application/octet-stream' } };
}

/** The request's `size`, or why it cannot be made. */
function sizeOf({ compatible }: OpenAISettings, request: ProviderRequest): string | { error: string } {
  if (compatible) return compatible.size(request);
  const first = request.references[0];
  // An edit without a named aspect keeps the reference's shape: the offered size nearest its ratio.
  const ratio =
    request.keepReferenceAspect && request.mode !== 'text' && first
      ? referenceRatio(first.width, first.height)
      : ratioOf(request.aspect);
  return sizeFor(request.upstreamModel, request.imageSize, ratio);
}

/** A compatible server's refusal of what it does not offer, before any call. */
function unoffered(
  { compatible, fail }: OpenAISettings,
  request: ProviderRequest,
): ProviderFailure | undefined {
  if (!compatible) return undefined;
  const invalid = (message: string) => fail(message, { retryable: false, cause: 'invalid_request' });
  if (request.mode !== 'text' && !compatible.edits)
    return invalid(`${compatible.name} offers no edits; remove "edit" and "fusion" from the catalog entry`);
  if (request.mask && !compatible.masks)
    return invalid(`${compatible.name} takes no masks; set "masks": false in the catalog entry`);
  return undefined;
}

/** The fields every call sends besides the prompt, the model and the size. */
interface CallFields {
  size: string;
  quality: string | undefined;
  /** A compatible server's declared extras: its answer's form and any fields it needs. */
  extra: Record<string, unknown>;
}

/** The edits call's multipart body, or why the references cannot be sent. */
async function editForm(
  { fail }: OpenAISettings,
  request: ProviderRequest,
  { size, quality, extra }: CallFields,
): Promise<FormData | ProviderFailure> {
  const fitted = await fitReferences(request.references, {
    acceptedTypes: ACCEPTED_TYPES,
    budgetBytes: Number.MAX_SAFE_INTEGER,
  });
  if ('error' in fitted) return fail(fitted.error, { retryable: false, cause: 'invalid_request' });
  const form = newFormData();
  // Parts in the order the official client writes them: images first, then the fields.
  fitted.forEach((image, i) => {
    const name = `reference-${i + 1}.${EXTENSION[image.contentType] ?? 'png'}`;
    form.append('image[]', new Blob([new Uint8Array(image.bytes)], { type: image.contentType }), name);
  });
  // OpenAI's mask: a PNG the first image's size; its fully transparent pixels are edited.
  if (request.mask) {
    const mask = new Blob([new Uint8Array(request.mask.bytes)], { type: 'image/png' });
    form.append('mask', mask, 'mask.png');
  }
  form.append('model', request.upstreamModel);
  form.append('prompt', request.prompt);
  form.append('n', '1');
  form.append('size', size);
  if (quality) form.append('quality', quality);
  for (const [name, value] of Object.entries(extra))
    form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  return form;
}

/** One whole Images call: generations for a text request, edits for the others. */
async function submit(settings: OpenAISettings, request: ProviderRequest): Promise<SubmitOutcome> {
  const { compatible, fail, baseUrl } = settings;
  if (!request.apiKey && (compatible?.keyed ?? true)) {
    return fail('no API key is configured for this account or deployment', {
      retryable: false,
      cause: 'unauthorized',
    });
  }
  const refused = unoffered(settings, request);
  if (refused) return refused;
  const model = request.upstreamModel;
  const size = sizeOf(settings, request);
  if (typeof size !== 'string') return fail(size.error, { retryable: false, cause: 'invalid_request' });
  const headers: Record<string, string> = request.apiKey ? { authorization: `Bearer ${request.apiKey}` } : {};
  const quality = request.quality ?? settings.quality;
  const extra: Record<string, unknown> = compatible
    ? { response_format: compatible.responseFormat, ...compatible.extraBody }
    : {};
  let url: string;
  let body: string | FormData;
  if (request.mode === 'text') {
    url = `${baseUrl}/v1/images/generations`;
    headers['content-type'] = 'application/json';
    const chosen = quality ? { quality } : {};
    body = JSON.stringify({ model, prompt: request.prompt, n: 1, size, ...chosen, ...extra });
  } else {
    const form = await editForm(settings, request, { size, quality, extra });
    if ('kind' in form) return form; // a failure, not a form
    url = `${baseUrl}/v1/images/edits`;
    body = form;
  }
  const call = { url, method: 'POST' as const, headers, body, timeoutMs: settings.requestTimeoutMs };
  const result = await callForJson(
    settings.label,
    { ...call, signal: request.signal, dispatcher: settings.dispatcher },
    (status, responseHeaders, responseBody) =>
      errorFailure(settings, model, status, responseHeaders, responseBody),
  );
  return 'kind' in result
    ? result
    : fetched(settings, readImage(settings, result.json, result.headers), request.signal);
}

/** Creates the OpenAI Images adapter. */
export function createOpenAIProvider(options: OpenAIProviderOptions = {}): ImageProvider {
  const compatible = options.compatible;
  const label = compatible ? `upstream ${compatible.name}` : 'OpenAI';
  const settings: OpenAISettings = {
    baseUrl: (options.baseUrl ?? 'https://api.openai.com').replace(/\/+$/, ''),
    requestTimeoutMs: options.requestTimeoutMs ?? 300_000,
    dispatcher: options.dispatcher ?? createUpstreamDispatcher(),
    now: options.now ?? Date.now,
    quality: options.quality,
    compatible,
    label,
    fail: failureFactory(label),
  };
  const { baseUrl, dispatcher, fail } = settings;
  const expected = options.expectedDurationMs ?? defaultExpectedDurationMs;

  return {
    name: compatible?.name ?? 'openai',
    requiresKey: compatible?.keyed ?? true,
    submitsInline: false,
    expectedDurationMs: (request) => (typeof expected === 'number' ? expected : expected(request)),
    submit: (request) => submit(settings, request),
    checkModels: (models, apiKey, signal) =>
      openAIModelPresence(models, { baseUrl, apiKey, signal, dispatcher }),

    async poll() {
      // Never pending: submit always ends the call.
      return fail('poll called on a synchronous provider', { retryable: false, cause: 'invalid_request' });
    },
  };
}
