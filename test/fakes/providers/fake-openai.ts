/**
 * A loopback stand-in for the OpenAI Images API (`/v1/images/generations` JSON and
 * `/v1/images/edits` multipart, and `GET /v1/models`) that accepts what the real one accepts (the
 * documented optional fields of openai-node 7.57, custom sizes on the GPT image 2 / 2.5 models
 * within their limits) and refuses what it refuses: an unknown parameter, `response_format` (GPT
 * image models), a size the model does not make, an input image of the wrong type, a model that
 * does not exist or was shut down (404 `model_not_found`), a missing or wrong Bearer key. Answers
 * are scripted per call.
 */
import sharp from 'sharp';
import { z } from 'zod';
import { gptImageOutputTokens } from '../../../src/capabilities/catalog/gpt-image-tokens.js';
import {
  CUSTOM_SIZE_LIMITS,
  openAISizing,
  STANDARD_SIZES,
} from '../../../src/capabilities/providers/openai-sizes.js';
import {
  type FakeAnswer,
  type FakeHttpServer,
  type RecordedRequest,
  solidPng,
  startFakeHttpServer,
} from './fake-http.js';
import { quotaSpent, rateLimited } from './openai-refusals.js';
import { openAIBudgetHeaders, type UpstreamLimit, upstreamLatency } from './upstream-limit.js';

export type OpenAIScript =
  | { kind: 'image' }
  | { kind: 'error'; status: number; json: unknown; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'malformed' };

export interface OpenAICall {
  endpoint: 'generations' | 'edits';
  model: string;
  /** Scalar parameters as sent (multipart values are strings). */
  params: Record<string, unknown>;
  /** Field name and media type of each uploaded image, in order. */
  images: Array<{ field: string; type: string; filename: string; bytes: Buffer }>;
  /** The `mask` part, when one was sent (checked as OpenAI does: a PNG with alpha, the image's size). */
  mask?: Buffer;
  raw: RecordedRequest;
}

/** The GPT image models the API serves today (openai-node 7.57 `ImageModel`, without `gpt-image-1`). */
export const OPENAI_IMAGE_MODELS = [
  'gpt-image-1-mini',
  'gpt-image-1.5',
  'gpt-image-2',
  'gpt-image-2-2026-04-21',
  'gpt-image-2.5-sunburst',
  'gpt-image-2.5-sunburst-2026-09-08',
  'gpt-image-2.5-flare',
  'gpt-image-2.5-flare-2026-09-08',
  'gpt-image-2.6-sunburst',
  'gpt-image-2.6-flare',
  'chatgpt-image-latest',
];

/** Shutdowns OpenAI announces in its model list (`shutdown_date`). */
const SHUTDOWNS: Record<string, string> = { 'gpt-image-1-mini': '2026-12-01' };

const QUALITY = ['low', 'medium', 'high', 'xhigh', 'max', 'auto'] as const;
const OUTPUT_FORMAT = ['png', 'webp', 'jpeg'] as const;

const generationSchema = z
  .object({
    model: z.string().min(1),
    prompt: z.string().min(1).max(32_000),
    n: z.number().int().min(1).max(10).optional(),
    size: z.string().optional(),
    quality: z.enum(QUALITY).optional(),
    output_format: z.enum(OUTPUT_FORMAT).optional(),
    output_compression: z.number().int().min(0).max(100).optional(),
    background: z.enum(['transparent', 'opaque', 'auto']).optional(),
    moderation: z.enum(['low', 'auto']).optional(),
    partial_images: z.number().int().min(0).max(3).optional(),
    stream: z.boolean().optional(),
    complexity: z.enum(['low', 'medium', 'high']).optional(),
    safety_identifier: z.string().optional(),
    user: z.string().optional(),
  })
  .strict();

const EDIT_FIELDS = new Set([
  'model',
  'prompt',
  'n',
  'size',
  'quality',
  'output_format',
  'output_compression',
  'background',
  'input_fidelity',
  'partial_images',
  'stream',
  'complexity',
  'safety_identifier',
  'user',
]);

/** Whether `size` is one `model` makes (see src/capabilities/providers/openai-sizes.ts for the limits). */
function sizeAccepted(model: string, size: string): boolean {
  if (size === 'auto' || STANDARD_SIZES.includes(size as (typeof STANDARD_SIZES)[number])) return true;
  if (openAISizing(model).kind !== 'custom') return false;
  const match = /^(\d{2,5})x(\d{2,5})$/.exec(size);
  if (!match) return false;
  const w = Number(match[1]);
  const h = Number(match[2]);
  const { multiple, maxEdge, maxPixels, minPixels, maxRatio } = CUSTOM_SIZE_LIMITS;
  return (
    w % multiple === 0 &&
    h % multiple === 0 &&
    Math.max(w, h) <= maxEdge &&
    w * h <= maxPixels &&
    w * h >= minPixels &&
    Math.max(w, h) / Math.min(w, h) <= maxRatio
  );
}

const invalid = (message: string, param: string | null = null, code: string | null = null): FakeAnswer => ({
  status: 400,
  json: { error: { message, type: 'invalid_request_error', param, code } },
});

/** OpenAI's checks of an edit's mask: a PNG under 4 MB with an alpha channel, the first image's size. */
async function checkMask(mask: Buffer, image: Buffer | undefined): Promise<FakeAnswer | undefined> {
  const meta = await sharp(mask)
    .metadata()
    .catch(() => undefined);
  if (meta?.format !== 'png' || mask.length >= 4 * 1024 * 1024)
    return invalid('Invalid mask: must be a valid PNG file, less than 4MB.', 'mask', 'invalid_image_format');
  if (!meta.hasAlpha) return invalid('Invalid mask: the mask must have an alpha channel.', 'mask');
  const first = image ? await sharp(image).metadata() : undefined;
  if (first?.width !== meta.width || first?.height !== meta.height)
    return invalid('Invalid mask: the mask and the image must have the same dimensions.', 'mask');
  return undefined;
}

export interface FakeOpenAI extends FakeHttpServer {
  calls: OpenAICall[];
  script(...answers: OpenAIScript[]): void;
}

/** The `usage` object of an answer. */
export interface FakeUsage {
  input_tokens: number;
  input_tokens_details: { text_tokens: number; image_tokens: number };
  output_tokens: number;
  total_tokens: number;
}

/** Image input tokens the fake bills per uploaded image (and per mask). */
export const FAKE_IMAGE_INPUT_TOKENS = 1000;

/**
 * The answer's `usage` as OpenAI's GPT image models give it (input split into text and image
 * tokens): 50 text tokens, FAKE_IMAGE_INPUT_TOKENS per image sent, 4,160 output tokens (a 1024²
 * image at high quality).
 */
export function defaultUsageOf(call: OpenAICall): FakeUsage {
  const image = (call.images.length + (call.mask ? 1 : 0)) * FAKE_IMAGE_INPUT_TOKENS;
  return {
    input_tokens: 50 + image,
    input_tokens_details: { text_tokens: 50, image_tokens: image },
    output_tokens: 4160,
    total_tokens: 50 + image + 4160,
  };
}

/** Text tokens `overbilledUsageOf` reports. */
export const OVERBILLED_TEXT_TOKENS = 10;

/**
 * A `usage` above what OpenAI documents: twice the output tokens its formula gives for the size at
 * high quality (and OVERBILLED_TEXT_TOKENS), so a quoted task costs more than its quote's maximum.
 */
export function overbilledUsageOf(call: OpenAICall): FakeUsage {
  const [w = 1, h = 1] = String(call.params.size).split('x').map(Number);
  const output = 2 * gptImageOutputTokens('high', w, h);
  return {
    input_tokens: OVERBILLED_TEXT_TOKENS,
    input_tokens_details: { text_tokens: OVERBILLED_TEXT_TOKENS, image_tokens: 0 },
    output_tokens: output,
    total_tokens: OVERBILLED_TEXT_TOKENS + output,
  };
}

/** Starts a fake OpenAI Images API that accepts `apiKey`, optionally behind a rate limit of its own. */
export async function startFakeOpenAI({
  apiKey,
  models = OPENAI_IMAGE_MODELS,
  limit,
  keys = {},
  usage = defaultUsageOf,
}: {
  /** The `usage` each image answer reports (default: defaultUsageOf). */
  usage?: (call: OpenAICall) => FakeUsage;
  apiKey: string;
  /** The upstream's own rate limit (429 past it), and the time each accepted call takes. */
  limit?: UpstreamLimit;
  /**
   * More keys it accepts (several organizations' keys behind one fake), each with its own rate
   * limit, or with its quota spent: answered 429 `insufficient_quota`, as OpenAI answers an
   * organization past its billing limit.
   */
  keys?: Record<string, { limit?: UpstreamLimit; quotaSpent?: boolean }>;
  /** The model ids this fake serves (and lists at `GET /v1/models`). */
  models?: readonly string[];
}): Promise<FakeOpenAI> {
  const queue: OpenAIScript[] = [];
  const calls: OpenAICall[] = [];
  // One encoding per size: the same bytes every time (a real upstream encodes on its own machines;
  // in this process the encoding would be charged to the node under test, a thousand times a burst).
  const images = new Map<string, Promise<Buffer>>();

  function checkModelParams(model: string, params: Record<string, unknown>): FakeAnswer | undefined {
    if (!models.includes(model)) {
      return {
        status: 404,
        json: {
          error: {
            message: `The model \`${model}\` does not exist or you do not have access to it.`,
            type: 'invalid_request_error',
            param: null,
            code: 'model_not_found',
          },
        },
      };
    }
    if (params.size !== undefined && !sizeAccepted(model, String(params.size))) {
      return invalid(`Invalid size '${String(params.size)}' for ${model}.`, 'size', 'invalid_value');
    }
    return undefined;
  }

  async function handle(request: RecordedRequest): Promise<FakeAnswer> {
    const auth = request.headers.authorization;
    const other = keys[auth?.replace(/^Bearer /, '') ?? ''];
    if (auth !== `Bearer ${apiKey}` && !other) {
      const given = auth?.replace(/^Bearer /, '') ?? '';
      return {
        status: 401,
        json: {
          error: {
            message: given
              ? `Incorrect API key provided: ${given}. You can find your API key at https://platform.openai.com/account/api-keys.`
              : "You didn't provide an API key.",
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        },
      };
    }
    if (request.method === 'GET' && request.path === '/v1/models') {
      const data = models.map((id) => ({
        id,
        object: 'model',
        created: 1_757_289_600,
        owned_by: 'system',
        ...(SHUTDOWNS[id] ? { shutdown_date: SHUTDOWNS[id] } : {}),
      }));
      return { status: 200, json: { object: 'list', data } };
    }
    if (request.method !== 'POST') return { status: 405, json: { error: { message: 'Method not allowed' } } };
    let call: OpenAICall;
    if (request.path === '/v1/images/generations') {
      if (!String(request.headers['content-type']).startsWith('application/json'))
        return invalid('Expected JSON');
      let json: unknown;
      try {
        json = JSON.parse(request.body.toString('utf8'));
      } catch {
        return invalid('We could not parse the JSON body of your request.');
      }
      const parsed = generationSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const key = issue?.code === 'unrecognized_keys' ? issue.keys[0] : issue?.path.join('.');
        return invalid(`Unknown or invalid parameter: '${key}'.`, key ?? null, 'unknown_parameter');
      }
      const params = parsed.data as Record<string, unknown>;
      const refused = checkModelParams(parsed.data.model, params);
      if (refused) return refused;
      call = { endpoint: 'generations', model: parsed.data.model, params, images: [], raw: request };
    } else if (request.path === '/v1/images/edits') {
      const contentType = String(request.headers['content-type']);
      if (!contentType.startsWith('multipart/form-data')) return invalid('Edits take multipart/form-data');
      let form: Awaited<ReturnType<Response['formData']>>;
      try {
        form = await new Response(new Uint8Array(request.body), {
          headers: { 'content-type': contentType },
        }).formData();
      } catch {
        return invalid('Could not parse multipart form');
      }
      const params: Record<string, unknown> = {};
      const images: OpenAICall['images'] = [];
      let mask: Buffer | undefined;
      for (const [field, value] of form.entries()) {
        if (field === 'mask') {
          if (typeof value === 'string') return invalid(`'${field}' must be a file`, field);
          mask = Buffer.from(await value.arrayBuffer());
        } else if (field === 'image' || field === 'image[]') {
          if (typeof value === 'string') return invalid(`'${field}' must be a file`, field);
          const bytes = Buffer.from(await value.arrayBuffer());
          let format: string | undefined;
          try {
            format = (await sharp(bytes).metadata()).format;
          } catch {
            format = undefined;
          }
          if (
            !format ||
            !['png', 'jpeg', 'webp'].includes(format) ||
            !['image/png', 'image/jpeg', 'image/webp'].includes(value.type)
          ) {
            return invalid(
              `Invalid file '${value.name}': unsupported mimetype ('${value.type}'). Supported file formats are 'image/jpeg', 'image/png', and 'image/webp'.`,
              field,
              'invalid_image_format',
            );
          }
          images.push({ field, type: value.type, filename: value.name, bytes });
        } else if (EDIT_FIELDS.has(field)) {
          if (typeof value !== 'string') return invalid(`'${field}' must be a string`, field);
          params[field] = value;
        } else {
          return invalid(`Unknown parameter: '${field}'.`, field, 'unknown_parameter');
        }
      }
      if (typeof params.model !== 'string') return invalid("Missing required parameter: 'model'.", 'model');
      const model = params.model;
      if (typeof params.prompt !== 'string' || params.prompt === '')
        return invalid("Missing required parameter: 'prompt'.", 'prompt');
      if (images.length === 0) return invalid("Missing required parameter: 'image'.", 'image');
      if (images.length > 16) return invalid('Too many images', 'image');
      const maskRefused = mask && (await checkMask(mask, images[0]?.bytes));
      if (maskRefused) return maskRefused;
      const refused = checkModelParams(model, params);
      if (refused) return refused;
      call = { endpoint: 'edits', model, params, images, ...(mask ? { mask } : {}), raw: request };
    } else {
      return {
        status: 404,
        json: { error: { message: `Invalid URL (POST ${request.path})`, type: 'invalid_request_error' } },
      };
    }
    calls.push(call);
    if (other?.quotaSpent) return quotaSpent();
    const pool = other ? other.limit : limit;
    const admission = pool?.admit();
    if (admission && !admission.ok)
      return rateLimited(call.model, admission.retryAfterMs, admission.budget());
    try {
      await upstreamLatency(pool);
      const answer = await scripted(call);
      // OpenAI states the request budget on every answer, not only on refusals.
      const budget = openAIBudgetHeaders(admission?.budget());
      return 'hang' in answer ? answer : { ...answer, headers: { ...answer.headers, ...budget } };
    } finally {
      if (admission?.ok) admission.done();
    }
  }

  async function scripted(call: OpenAICall): Promise<FakeAnswer> {
    const next = queue.shift() ?? { kind: 'image' };
    switch (next.kind) {
      case 'hang':
        return { hang: true };
      case 'malformed':
        return { status: 200, raw: '{"created": 1, "data": [{"b64_js', contentType: 'application/json' };
      case 'error':
        return { status: next.status, json: next.json, headers: next.headers };
      case 'image': {
        const size = String(call.params.size ?? '1024x1024');
        const [w, h] = size.split('x').map((v) => Math.max(8, Math.round(Number(v) / 16)));
        const key = `${w || 64}x${h || 64}`;
        const image = images.get(key) ?? solidPng(w || 64, h || 64, '#aa44cc');
        images.set(key, image);
        const png = await image;
        return {
          status: 200,
          json: {
            created: Math.floor(Date.now() / 1000),
            data: [{ b64_json: png.toString('base64') }],
            output_format: 'png',
            size,
            usage: usage(call),
          },
        };
      }
    }
  }

  const server = await startFakeHttpServer(handle);
  return { ...server, calls, script: (...answers) => queue.push(...answers) };
}
