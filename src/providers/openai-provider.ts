/**
 * OpenAI Images (`POST /v1/images/generations`, `POST /v1/images/edits`), a synchronous upstream:
 * `submit` makes the whole call and answers `done` with the decoded `b64_json` image.
 *
 * Wire format checked against (2026):
 * - https://platform.openai.com/docs/api-reference/images and openai/openai-node
 *   `src/resources/images.ts`: generations take JSON `{model, prompt, n, size, quality, …}`;
 *   edits take multipart with one `image[]` part per input image (GPT image models take several,
 *   which is what fusion needs), `dall-e-2` a single `image`; GPT image models always answer
 *   `data[].b64_json` and refuse `response_format`, DALL·E models need `response_format=b64_json`.
 *   Sizes: GPT image `1024x1024`, `1536x1024`, `1024x1536`; `dall-e-3` `1024x1024`, `1792x1024`,
 *   `1024x1792`; `dall-e-2` squares.
 * - Error body `{error:{message,type,param,code}}`; a safety refusal is 400 with code
 *   `moderation_blocked` (GPT image) or `content_policy_violation` (DALL·E); an exhausted balance
 *   is 429 `insufficient_quota`, which no retry can fix.
 *
 * Aspect → size: the supported size whose ratio is nearest the requested aspect (in log scale),
 * e.g. 16:9 → 1536x1024. Every size these models offer is about 1 megapixel, so only `1K` is
 * accepted; a catalog that lists 2K/4K for an OpenAI model gets a clear task failure.
 *
 * Retry safety: the Images API keeps no job and offers no idempotency key for images, so a call
 * that died after it was sent left nothing to recover; repeating it cannot duplicate a result,
 * only bill a second generation. Such failures carry `maybeAccepted: true` and the engine retries
 * them at most once.
 */
import type { Dispatcher } from 'undici';
import type {
  ImageProvider,
  ImageSize,
  ProviderFailure,
  ProviderRequest,
  SubmitOutcome,
} from './provider.js';
import {
  allowedToken,
  httpFailureText,
  OPENAI_ERROR_CODES,
  OPENAI_ERROR_TYPES,
} from './upstream-error-text.js';
import {
  callForJson,
  createUpstreamDispatcher,
  FormData,
  failureFactory,
  fitReferences,
  isRecord,
  parseJson,
  retryAfterMs,
  sniffImageType,
  statusClass,
} from './upstream-http.js';

/** The pixel sizes a model offers, per Atelier image size. */
export type OpenAISizeTable = Partial<Record<ImageSize, readonly string[]>>;

export interface OpenAIProviderOptions {
  baseUrl?: string;
  requestTimeoutMs?: number;
  expectedDurationMs?: number | ((request: Pick<ProviderRequest, 'upstreamModel' | 'imageSize'>) => number);
  /** Sizes per model (default: the documented tables of the GPT image and DALL·E models). */
  sizesFor?: (upstreamModel: string) => OpenAISizeTable;
  /** `quality` for GPT image models; not sent when unset (the API default, `auto`). */
  quality?: 'auto' | 'low' | 'medium' | 'high';
  dispatcher?: Dispatcher;
  now?: () => number;
}

const GPT_IMAGE_SIZES = ['1024x1024', '1536x1024', '1024x1536'] as const;
const DALL_E_3_SIZES = ['1024x1024', '1792x1024', '1024x1792'] as const;

const isDallE = (model: string) => /^dall-e-/.test(model);

/** The documented size tables. */
export function openAISizes(upstreamModel: string): OpenAISizeTable {
  if (upstreamModel === 'dall-e-3') return { '1K': DALL_E_3_SIZES };
  if (upstreamModel === 'dall-e-2') return { '1K': ['1024x1024'] };
  return { '1K': GPT_IMAGE_SIZES };
}

/** The size whose width:height is nearest `aspect` (log-ratio distance; ties go to the first). */
export function nearestSize(aspect: string, sizes: readonly string[]): string {
  const [w, h] = aspect.split(':').map(Number);
  const wanted = Math.log((w || 1) / (h || 1));
  let best = sizes[0] ?? '1024x1024';
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const size of sizes) {
    const [sw, sh] = size.split('x').map(Number);
    const distance = Math.abs(Math.log((sw || 1) / (sh || 1)) - wanted);
    if (distance < bestDistance - 1e-9) {
      best = size;
      bestDistance = distance;
    }
  }
  return best;
}

function defaultExpectedDurationMs({
  upstreamModel,
}: Pick<ProviderRequest, 'upstreamModel' | 'imageSize'>): number {
  if (isDallE(upstreamModel)) return 15_000;
  return /mini/.test(upstreamModel) ? 20_000 : 45_000;
}

const ACCEPTED_TYPES = ['image/png', 'image/jpeg', 'image/webp'];
const EXTENSION: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** Creates the OpenAI Images adapter. */
export function createOpenAIProvider(options: OpenAIProviderOptions = {}): ImageProvider {
  const baseUrl = (options.baseUrl ?? 'https://api.openai.com').replace(/\/+$/, '');
  const requestTimeoutMs = options.requestTimeoutMs ?? 300_000;
  const sizesFor = options.sizesFor ?? openAISizes;
  const dispatcher = options.dispatcher ?? createUpstreamDispatcher();
  const now = options.now ?? Date.now;
  const expected = options.expectedDurationMs ?? defaultExpectedDurationMs;

  const fail = failureFactory('OpenAI');

  function errorFailure(status: number, headers: Headers, body: Buffer): ProviderFailure {
    const json = parseJson(body);
    const error = isRecord(json) && isRecord(json.error) ? json.error : undefined;
    // Only allow-listed fields reach the message (see upstream-error-text.ts); free text never does.
    const code = allowedToken(error?.code, OPENAI_ERROR_CODES);
    const type = allowedToken(error?.type, OPENAI_ERROR_TYPES);
    const tokens = [code, type];
    if (code === 'moderation_blocked' || code === 'content_policy_violation') {
      const sentence = 'the request was refused by the safety system; change the prompt or the images';
      return fail(httpFailureText(status, tokens, sentence), { retryable: false, cause: 'blocked' });
    }
    if (code === 'insufficient_quota' || type === 'insufficient_quota') {
      // A billing limit: retrying cannot succeed until someone adds credit.
      const sentence = 'the upstream account has no quota left; add credit or raise its limit';
      return fail(httpFailureText(status, tokens, sentence), { retryable: false, cause: 'rate_limited' });
    }
    const { retryable, cause } = statusClass(status);
    const failure = fail(httpFailureText(status, tokens), { retryable, cause });
    if (status === 429 || status === 503) {
      const wait = retryAfterMs(headers, now());
      if (wait !== undefined) failure.retryAfterMs = wait;
    }
    return failure;
  }

  function readImage(json: unknown): SubmitOutcome {
    const first = isRecord(json) && Array.isArray(json.data) ? json.data[0] : undefined;
    if (isRecord(first) && typeof first.b64_json === 'string') {
      const bytes = Buffer.from(first.b64_json, 'base64');
      const contentType = sniffImageType(bytes);
      if (contentType) return { kind: 'done', image: { bytes, contentType } };
    } else if (isRecord(first) && typeof first.url === 'string' && /^https:\/\//.test(first.url)) {
      return { kind: 'done', image: { url: first.url } };
    }
    return fail('the answer holds no readable image (data[0].b64_json)', {
      retryable: true,
      maybeAccepted: true,
      cause: 'bad_response',
    });
  }

  return {
    name: 'openai',
    requiresKey: true,
    submitsInline: false,
    expectedDurationMs: (request) => (typeof expected === 'number' ? expected : expected(request)),

    async submit(request) {
      if (!request.apiKey) {
        return fail('no API key is configured for this account or deployment', {
          retryable: false,
          cause: 'unauthorized',
        });
      }
      const model = request.upstreamModel;
      const table = sizesFor(model);
      const sizes = table[request.imageSize];
      if (!sizes || sizes.length === 0) {
        const offered = Object.keys(table).join(', ') || 'none';
        return fail(
          `${model} makes no ${request.imageSize} images (sizes it offers: ${offered}); fix the sizes of its catalog entry`,
          { retryable: false, cause: 'invalid_request' },
        );
      }
      const size = nearestSize(request.aspect, sizes);
      const headers: Record<string, string> = { authorization: `Bearer ${request.apiKey}` };
      let url: string;
      let body: string | FormData;

      if (request.mode === 'text') {
        url = `${baseUrl}/v1/images/generations`;
        headers['content-type'] = 'application/json';
        body = JSON.stringify({
          model,
          prompt: request.prompt,
          n: 1,
          size,
          ...(isDallE(model) ? { response_format: 'b64_json' } : {}),
          ...(options.quality && !isDallE(model) ? { quality: options.quality } : {}),
        });
      } else {
        if (model === 'dall-e-3' || (model === 'dall-e-2' && request.references.length > 1)) {
          return fail(
            `${model} cannot ${request.mode === 'edit' ? 'edit images' : 'combine several images'}`,
            {
              retryable: false,
              cause: 'invalid_request',
            },
          );
        }
        const fitted = await fitReferences(request.references, {
          acceptedTypes: ACCEPTED_TYPES,
          budgetBytes: Number.MAX_SAFE_INTEGER,
        });
        if ('error' in fitted) return fail(fitted.error, { retryable: false, cause: 'invalid_request' });
        const form = new FormData();
        form.append('model', model);
        form.append('prompt', request.prompt);
        form.append('n', '1');
        form.append('size', size);
        if (isDallE(model)) form.append('response_format', 'b64_json');
        else if (options.quality) form.append('quality', options.quality);
        // GPT image models take several images as repeated `image[]` parts; dall-e-2 one `image`.
        const field = isDallE(model) ? 'image' : 'image[]';
        fitted.forEach((image, i) => {
          const name = `reference-${i + 1}.${EXTENSION[image.contentType] ?? 'png'}`;
          form.append(field, new Blob([new Uint8Array(image.bytes)], { type: image.contentType }), name);
        });
        url = `${baseUrl}/v1/images/edits`;
        body = form;
      }

      const result = await callForJson(
        'OpenAI',
        {
          url,
          method: 'POST',
          headers,
          body,
          timeoutMs: requestTimeoutMs,
          signal: request.signal,
          dispatcher,
        },
        errorFailure,
      );
      return 'kind' in result ? result : readImage(result.json);
    },

    async poll() {
      // Never pending: submit always ends the call.
      return fail('poll called on a synchronous provider', { retryable: false, cause: 'invalid_request' });
    },
  };
}
