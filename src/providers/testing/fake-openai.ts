/**
 * A loopback stand-in for the OpenAI Images API (`/v1/images/generations` JSON and
 * `/v1/images/edits` multipart) that refuses what the real one refuses: an unknown parameter,
 * `response_format` sent to a GPT image model, a size the model does not offer, an input image of
 * the wrong type, a missing or wrong Bearer key. Answers are scripted per call.
 */
import sharp from 'sharp';
import { z } from 'zod';
import {
  type FakeAnswer,
  type FakeHttpServer,
  type RecordedRequest,
  solidPng,
  startFakeHttpServer,
} from './fake-http.js';

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
  raw: RecordedRequest;
}

const SIZES: Record<string, readonly string[]> = {
  'dall-e-2': ['256x256', '512x512', '1024x1024'],
  'dall-e-3': ['1024x1024', '1792x1024', '1024x1792'],
};
const GPT_IMAGE_SIZES = ['auto', '1024x1024', '1536x1024', '1024x1536'];
const sizesOf = (model: string) => SIZES[model] ?? GPT_IMAGE_SIZES;
const isDallE = (model: string) => model.startsWith('dall-e-');

const generationSchema = z
  .object({
    model: z.string().min(1),
    prompt: z.string().min(1),
    n: z.number().int().min(1).max(10).optional(),
    size: z.string().optional(),
    quality: z.enum(['auto', 'low', 'medium', 'high', 'standard', 'hd']).optional(),
    response_format: z.enum(['url', 'b64_json']).optional(),
    output_format: z.enum(['png', 'jpeg', 'webp']).optional(),
    background: z.enum(['transparent', 'opaque', 'auto']).optional(),
    moderation: z.enum(['low', 'auto']).optional(),
    style: z.enum(['vivid', 'natural']).optional(),
    user: z.string().optional(),
  })
  .strict();

const EDIT_FIELDS = new Set([
  'model',
  'prompt',
  'n',
  'size',
  'quality',
  'response_format',
  'output_format',
  'background',
  'input_fidelity',
  'user',
]);

const invalid = (message: string, param: string | null = null, code: string | null = null): FakeAnswer => ({
  status: 400,
  json: { error: { message, type: 'invalid_request_error', param, code } },
});

export interface FakeOpenAI extends FakeHttpServer {
  calls: OpenAICall[];
  script(...answers: OpenAIScript[]): void;
}

/** Starts a fake OpenAI Images API that accepts `apiKey`. */
export async function startFakeOpenAI({ apiKey }: { apiKey: string }): Promise<FakeOpenAI> {
  const queue: OpenAIScript[] = [];
  const calls: OpenAICall[] = [];

  function checkModelParams(model: string, params: Record<string, unknown>): FakeAnswer | undefined {
    if (params.size !== undefined && !sizesOf(model).includes(String(params.size))) {
      return invalid(
        `Invalid value: '${String(params.size)}'. Supported values are: ${sizesOf(model).join(', ')}.`,
        'size',
        'invalid_value',
      );
    }
    if (!isDallE(model) && params.response_format !== undefined) {
      return invalid("Unknown parameter: 'response_format'.", 'response_format', 'unknown_parameter');
    }
    return undefined;
  }

  async function handle(request: RecordedRequest): Promise<FakeAnswer> {
    const auth = request.headers.authorization;
    if (auth !== `Bearer ${apiKey}`) {
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
      for (const [field, value] of form.entries()) {
        if (field === 'image' || field === 'image[]') {
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
      const model = String(params.model ?? 'dall-e-2');
      if (typeof params.prompt !== 'string' || params.prompt === '')
        return invalid("Missing required parameter: 'prompt'.", 'prompt');
      if (images.length === 0) return invalid("Missing required parameter: 'image'.", 'image');
      if (model === 'dall-e-3') return invalid('dall-e-3 does not support edits', 'model');
      if (isDallE(model) && (images.length > 1 || images[0]?.field !== 'image'))
        return invalid('dall-e-2 takes one image', 'image');
      if (!isDallE(model) && images.length > 16) return invalid('Too many images', 'image');
      const refused = checkModelParams(model, params);
      if (refused) return refused;
      call = { endpoint: 'edits', model, params, images, raw: request };
    } else {
      return {
        status: 404,
        json: { error: { message: `Invalid URL (POST ${request.path})`, type: 'invalid_request_error' } },
      };
    }
    calls.push(call);

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
        const png = await solidPng(w || 64, h || 64, '#aa44cc');
        return {
          status: 200,
          json: {
            created: Math.floor(Date.now() / 1000),
            data: [{ b64_json: png.toString('base64') }],
            ...(isDallE(call.model)
              ? {}
              : {
                  output_format: 'png',
                  size,
                  usage: { input_tokens: 50, output_tokens: 4160, total_tokens: 4210 },
                }),
          },
        };
      }
    }
  }

  const server = await startFakeHttpServer(handle);
  return { ...server, calls, script: (...answers) => queue.push(...answers) };
}
