/**
 * Gemini image models through the Generative Language API (`v1/models/{model}:generateContent`,
 * the stable API version @google/genai 3.x calls by default), a synchronous upstream: `submit`
 * makes the whole call and answers `done` with the image bytes. The request is compared by test
 * with what that client sends for the same call (sdk-request-bodies.test.ts).
 *
 * Wire format checked against (2026):
 * - https://ai.google.dev/api/generate-content — request `contents[].parts[]` (`text`,
 *   `inlineData{mimeType,data}`), `generationConfig.responseModalities`, response
 *   `candidates[].content.parts[]`, `candidates[].finishReason`, `promptFeedback.blockReason`,
 *   `usageMetadata` (read by gemini-usage.ts);
 *   FinishReason / BlockedReason enums as in googleapis/js-genai `src/types.ts`.
 * - https://ai.google.dev/gemini-api/docs/image-generation — `generationConfig.imageConfig`
 *   `{aspectRatio, imageSize: "1K"|"2K"|"4K"}`; `imageSize` exists only on the Gemini 3 image
 *   models, Gemini 2.x image models make ~1 MP images and take no size.
 * - https://ai.google.dev/gemini-api/docs/troubleshooting and google.rpc `Status` — error body
 *   `{error:{code,message,status,details[]}}`, `API_KEY_INVALID` in an `ErrorInfo` detail,
 *   `RetryInfo.retryDelay` on 429.
 * - Inline request limit: 20 MB historically, raised to 100 MB in Jan 2026
 *   (blog.google "gemini-api-new-file-limits"); the default here stays at the safe 20 MB.
 *
 * Retry safety: generateContent is stateless (no job is kept upstream, nothing can be fetched
 * later), so a call that died after it was sent has produced nothing we could recover. Sending it
 * again is safe for correctness and costs at most one extra billed generation; such failures carry
 * `maybeAccepted: true` and the engine retries them at most once.
 */
import type { Dispatcher } from 'undici';
import { isOneOf } from '../../base/collections/closed-set.js';
import type { ImageSize } from '../../base/domain/image-sizes.js';
import {
  BLOCK_REASONS,
  explainBlock,
  explainFinish,
  FINISH_REASONS,
  REASON_TOKEN,
} from './gemini-reasons.js';
import { answeredTurnOf, historyContents, inlineOf, lastModelImage } from './gemini-turns.js';
import { geminiUsageOf } from './gemini-usage.js';
import { geminiModelPresence } from './model-lists.js';
import type { ImageProvider, ProviderFailure, ProviderRequest, SubmitOutcome } from './provider.js';
import { geminiTimeLimit } from './rate-limits.js';
import { fitReferences } from './reference-fit.js';
import { sniffImageType } from './result-image.js';
import { retryAfterMs } from './retry-after.js';
import { safeMessage } from './secret-scrub.js';
import { callForJson, createUpstreamDispatcher } from './upstream-call.js';
import {
  allowedToken,
  GOOGLE_ERROR_REASONS,
  GOOGLE_RPC_CODES,
  httpFailureText,
} from './upstream-error-text.js';
import { failureFactory, statusClass } from './upstream-failures.js';
import { isRecord, parseJson } from './upstream-json.js';

export interface GeminiProviderOptions {
  baseUrl?: string;
  /** Deadline of one generateContent call; 4K images on the pro model take minutes. */
  requestTimeoutMs?: number;
  /** Expected duration of one image, for the engine's progress estimate. */
  expectedDurationMs?: number | ((request: Pick<ProviderRequest, 'upstreamModel' | 'imageSize'>) => number);
  /** Largest request body the API takes with inline images (default 20 MB). */
  maxRequestBytes?: number;
  /** Models that refuse `imageConfig.imageSize` (default: the Gemini 2.x family). */
  refusesImageSize?: (upstreamModel: string) => boolean;
  dispatcher?: Dispatcher;
  now?: () => number;
}

/** Input types the API takes as `inlineData` for images. */
const ACCEPTED_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif'];

/** Gemini 2.0/2.5 image models have no size control; Gemini 3 image models take 1K/2K/4K. */
export function geminiRefusesImageSize(upstreamModel: string): boolean {
  return /^(models\/)?gemini-2\./.test(upstreamModel);
}

function defaultExpectedDurationMs({
  upstreamModel,
  imageSize,
}: Pick<ProviderRequest, 'upstreamModel' | 'imageSize'>) {
  const base = /pro/.test(upstreamModel) ? 30_000 : 12_000;
  const factor: Record<ImageSize, number> = { '1K': 1, '2K': 1.5, '4K': 2.5 };
  return Math.round(base * factor[imageSize]);
}

/**
 * `imageConfig`: without an aspect named for an edit or fusion, no `aspectRatio` is sent and Gemini
 * keeps the references' shape; `imageSize` only to the models that take it.
 */
function imageConfigFor(
  request: ProviderRequest,
  sendsSize: boolean,
): { imageConfig?: Record<string, string> } {
  const imageConfig = {
    ...(request.keepReferenceAspect ? {} : { aspectRatio: request.aspect }),
    ...(sendsSize ? { imageSize: request.imageSize } : {}),
  };
  return Object.keys(imageConfig).length > 0 ? { imageConfig } : {};
}

/** `"13s"` / `"0.5s"` from a google.rpc.RetryInfo detail. */
function retryInfoMs(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (isRecord(detail) && typeof detail.retryDelay === 'string') {
      const match = /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay);
      if (match) return Math.ceil(Number(match[1]) * 1000);
    }
  }
  return undefined;
}

/** The allow-listed reason of the first google.rpc.ErrorInfo detail, if any. */
function errorInfoReason(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const reason = isRecord(detail) ? allowedToken(detail.reason, GOOGLE_ERROR_REASONS) : undefined;
    if (reason) return reason;
  }
  return undefined;
}

const fail = failureFactory('Gemini');

/** A conversation whose thought signatures the API refused (another project's key, another model). */
const SIGNATURES_REFUSED = "the conversation's thought signatures were refused";

/** What one Gemini adapter was built with: the settled options its calls read. */
interface GeminiSettings {
  baseUrl: string;
  requestTimeoutMs: number;
  maxRequestBytes: number;
  refusesImageSize: (upstreamModel: string) => boolean;
  dispatcher: Dispatcher;
  now: () => number;
}

/** An error answer as a failure: a rejected key, a missing model, or the status's class. */
function errorFailure(
  settings: GeminiSettings,
  model: string,
  status: number,
  headers: Headers,
  body: Buffer,
): ProviderFailure {
  const json = parseJson(body);
  const error = isRecord(json) && isRecord(json.error) ? json.error : undefined;
  // Only allow-listed fields reach the message (see upstream-error-text.ts); free text never does.
  const rpcStatus = allowedToken(error?.status, GOOGLE_RPC_CODES);
  const reason = errorInfoReason(error?.details);
  const keyRejected =
    reason === 'API_KEY_INVALID' ||
    (typeof error?.message === 'string' && /API key not valid/i.test(error.message));
  if (keyRejected) {
    const sentence = 'the API key was rejected; check the key set for this account or the deployment';
    return fail(httpFailureText(status, [rpcStatus, reason ?? 'API_KEY_INVALID'], sentence), {
      retryable: false,
      cause: 'unauthorized',
    });
  }
  if (status === 400 && typeof error?.message === 'string' && /thought.signature/i.test(error.message)) {
    return fail(httpFailureText(status, [rpcStatus], SIGNATURES_REFUSED), {
      retryable: false,
      cause: 'invalid_request',
    });
  }
  if (status === 404) {
    // The only path is models/{model}:generateContent: a 404 says the model is gone (shut down,
    // renamed, or never offered to this key).
    return fail(httpFailureText(status, [rpcStatus, reason], `model ${model} not found upstream`), {
      retryable: false,
      cause: 'model_not_found',
    });
  }
  const { retryable, cause } = statusClass(status);
  const failure = fail(httpFailureText(status, [rpcStatus, reason]), { retryable, cause });
  if (status === 429 || status === 503) {
    const wait = retryAfterMs(headers, settings.now()) ?? retryInfoMs(error?.details);
    if (wait !== undefined) failure.retryAfterMs = wait;
    // A QuotaFailure names a per-minute or per-day quota: a limit on time, not on calls at once.
    if (status === 429 && geminiTimeLimit(error?.details)) failure.timeLimit = true;
  }
  return failure;
}

/** A refused prompt (`promptFeedback.blockReason`), when the answer says so. */
function promptBlocked(json: Record<string, unknown>): ProviderFailure | undefined {
  const feedback = isRecord(json.promptFeedback) ? json.promptFeedback : undefined;
  if (!feedback || feedback.blockReason === undefined) return undefined;
  const given = feedback.blockReason;
  const reason = isOneOf(BLOCK_REASONS, given) ? given : 'OTHER';
  const name = typeof given === 'string' && REASON_TOKEN.test(given) ? given : reason;
  return fail(`${explainBlock(reason)} (${name})`, {
    retryable: false,
    cause: 'blocked',
  });
}

/**
 * The last real image among a candidate's parts (Gemini 3 models may stream "thought" images
 * before the final one); the parts' texts are added to `texts`.
 */
function candidateImage(
  candidate: Record<string, unknown>,
  texts: string[],
): { data: string; mimeType?: string } | undefined {
  const parts =
    isRecord(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
  let image: { data: string; mimeType?: string } | undefined;
  for (const part of parts) {
    if (!isRecord(part) || part.thought === true) continue;
    const inline = isRecord(part.inlineData)
      ? part.inlineData
      : isRecord(part.inline_data)
        ? part.inline_data
        : undefined;
    const mimeType = inline?.mimeType ?? inline?.mime_type;
    if (
      inline &&
      typeof inline.data === 'string' &&
      (typeof mimeType !== 'string' || mimeType.startsWith('image/'))
    ) {
      image = { data: inline.data, mimeType: typeof mimeType === 'string' ? mimeType : undefined };
    } else if (typeof part.text === 'string' && part.text.trim() !== '') {
      texts.push(part.text);
    }
  }
  return image;
}

/** No image in any candidate: the first candidate's finish reason, and what the model said. */
function finishFailure(candidates: Record<string, unknown>[], texts: string[]): ProviderFailure {
  const given = candidates[0]?.finishReason;
  const reason = isOneOf(FINISH_REASONS, given) ? given : 'OTHER';
  const { text, blocked } = explainFinish(reason);
  const said = texts.length > 0 ? `; the model said: "${safeMessage(texts.join(' '), [], 300)}"` : '';
  // A reason newer than this list keeps its name (an enum-shaped token only, never free text).
  const raw = typeof given === 'string' && REASON_TOKEN.test(given) ? ` (${given})` : '';
  // A miss is final too: retrying an identical prompt mostly misses again, and each try is billed.
  return fail(`${text}${raw}${said}`, { retryable: false, cause: blocked ? 'blocked' : 'invalid_request' });
}

/** A successful answer read: the image, or why there is none. */
function readImage(json: unknown): SubmitOutcome {
  if (!isRecord(json)) {
    return fail('the answer is not a JSON object', {
      retryable: true,
      maybeAccepted: true,
      cause: 'bad_response',
    });
  }
  const blocked = promptBlocked(json);
  if (blocked) return blocked;
  const candidates = Array.isArray(json.candidates) ? json.candidates.filter(isRecord) : [];
  const texts: string[] = [];
  for (const candidate of candidates) {
    const image = candidateImage(candidate, texts);
    if (image) {
      const bytes = Buffer.from(image.data, 'base64');
      const sniffed = sniffImageType(bytes);
      if (!sniffed) {
        return fail('the image in the answer is not a readable PNG, JPEG or WebP', {
          retryable: true,
          maybeAccepted: true,
          cause: 'bad_response',
        });
      }
      const usage = geminiUsageOf(json.usageMetadata);
      const turn = answeredTurnOf(candidate);
      return { kind: 'done', image: { bytes, contentType: sniffed }, ...(usage ? { usage } : {}), turn };
    }
  }
  return finishFailure(candidates, texts);
}

/**
 * The generateContent body: the earlier turns of a refinement's conversation (gemini-turns.ts),
 * then the prompt and the fitted references inline, and the image config. A conversation too large
 * for the request's limit is left out: the parent image then goes as the first reference.
 */
async function requestBody(
  settings: GeminiSettings,
  request: ProviderRequest,
  sendsSize: boolean,
): Promise<string | ProviderFailure> {
  const prompt = { text: request.prompt };
  const overhead = Buffer.byteLength(JSON.stringify(prompt)) + 4096;
  let history = historyContents(request.history ?? []);
  let references = request.references;
  const parent = lastModelImage(request.history ?? []);
  if (parent && history.bytes > (settings.maxRequestBytes - overhead) / 2) {
    history = { contents: [], bytes: 0 };
    references = [parent, ...references];
  }
  const fitted = await fitReferences(references, {
    acceptedTypes: ACCEPTED_TYPES,
    budgetBytes: settings.maxRequestBytes - overhead - history.bytes,
  });
  if ('error' in fitted) return fail(fitted.error, { retryable: false, cause: 'invalid_request' });
  return JSON.stringify({
    contents: [...history.contents, { role: 'user', parts: [prompt, ...fitted.map(inlineOf)] }],
    generationConfig: {
      responseModalities: ['IMAGE'],
      ...imageConfigFor(request, sendsSize),
      // GenerationConfig.seed: "Seed used in decoding"; sent only on routes with `seeds: true`.
      ...(request.seed !== undefined && { seed: request.seed }),
    },
  });
}

/** One whole generateContent call. */
async function submit(settings: GeminiSettings, request: ProviderRequest): Promise<SubmitOutcome> {
  if (!request.apiKey) {
    return fail('no API key is configured for this account or deployment', {
      retryable: false,
      cause: 'unauthorized',
    });
  }
  const model = request.upstreamModel.replace(/^models\//, '');
  const sendsSize = !settings.refusesImageSize(model);
  if (!sendsSize && request.imageSize !== '1K') {
    return fail(
      `${model} has no size control and makes ~1K images; its catalog entry must list sizes ["1K"] only (asked for ${request.imageSize})`,
      { retryable: false, cause: 'invalid_request' },
    );
  }
  const keyed = { ...request, apiKey: request.apiKey };
  const outcome = await call(settings, keyed, model, sendsSize);
  const parent = lastModelImage(request.history ?? []);
  if (outcome.kind === 'failed' && parent && outcome.message.includes(SIGNATURES_REFUSED)) {
    // Signatures the upstream no longer takes: the edit goes on as one turn, the parent image first.
    const references = [parent, ...request.references];
    return call(settings, { ...keyed, history: [], references }, model, sendsSize);
  }
  return outcome;
}

/** The request's generateContent call, and its answer read. */
async function call(
  settings: GeminiSettings,
  request: ProviderRequest & { apiKey: string },
  model: string,
  sendsSize: boolean,
): Promise<SubmitOutcome> {
  const body = await requestBody(settings, request, sendsSize);
  if (typeof body !== 'string') return body;
  const result = await callForJson(
    'Gemini',
    {
      url: `${settings.baseUrl}/v1/models/${encodeURIComponent(model)}:generateContent`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': request.apiKey },
      body,
      timeoutMs: settings.requestTimeoutMs,
      signal: request.signal,
      dispatcher: settings.dispatcher,
    },
    (status, headers, body) => errorFailure(settings, model, status, headers, body),
  );
  return 'kind' in result ? result : readImage(result.json);
}

/** Creates the Gemini adapter. */
export function createGeminiProvider(options: GeminiProviderOptions = {}): ImageProvider {
  const settings: GeminiSettings = {
    baseUrl: (options.baseUrl ?? 'https://generativelanguage.googleapis.com').replace(/\/+$/, ''),
    requestTimeoutMs: options.requestTimeoutMs ?? 300_000,
    maxRequestBytes: options.maxRequestBytes ?? 20_000_000,
    refusesImageSize: options.refusesImageSize ?? geminiRefusesImageSize,
    dispatcher: options.dispatcher ?? createUpstreamDispatcher(),
    now: options.now ?? Date.now,
  };
  const expected = options.expectedDurationMs ?? defaultExpectedDurationMs;
  const { baseUrl, dispatcher } = settings;

  return {
    name: 'gemini',
    requiresKey: true,
    submitsInline: false,
    expectedDurationMs: (request) => (typeof expected === 'number' ? expected : expected(request)),
    submit: (request) => submit(settings, request),
    checkModels: (models, apiKey, signal) =>
      geminiModelPresence(models, { baseUrl, apiKey, signal, dispatcher }),

    async poll() {
      // Never pending: submit always ends the call.
      return fail('poll called on a synchronous provider', { retryable: false, cause: 'invalid_request' });
    },
  };
}
