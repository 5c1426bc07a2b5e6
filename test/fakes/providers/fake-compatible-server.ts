/**
 * A loopback OpenAI-compatible image server, as LocalAI and stable-diffusion.cpp's server speak it:
 * `POST /v1/images/generations` (JSON `{model, prompt, n, size, response_format, …}`),
 * `POST /v1/images/edits` (multipart `image`/`image[]`, `mask`, the same fields as strings),
 * `GET /v1/models`, and, for `response_format: "url"`, the image itself at
 * `GET /generated-images/{id}.png` (LocalAI's path). It makes the size asked for, refuses a size
 * outside `sizes` when it has a fixed list, an unknown model (404), a wrong key (401), and answers
 * scripted errors with OpenAI's error body.
 */
import { type FakeAnswer, type FakeHttpServer, solidPng, startFakeHttpServer } from './fake-http.js';

export interface CompatibleCall {
  endpoint: 'generations' | 'edits';
  params: Record<string, unknown>;
  images: number;
  mask: boolean;
}

export type CompatibleScript =
  | { kind: 'error'; status: number; code: string; message: string }
  | { kind: 'hang' }
  | { kind: 'close' };

export interface FakeCompatibleServer extends FakeHttpServer {
  calls: CompatibleCall[];
  script(...answers: CompatibleScript[]): void;
}

export async function startFakeCompatibleServer(options: {
  models: string[];
  /** null: no key is asked for. */
  apiKey: string | null;
  /** A fixed size list; absent: any `WxH`. */
  sizes?: string[];
  /** `url` answers as paths on the server (`/generated-images/…`) instead of absolute URLs. */
  relativeUrls?: boolean;
}): Promise<FakeCompatibleServer> {
  const calls: CompatibleCall[] = [];
  const queue: CompatibleScript[] = [];
  const stored = new Map<string, Buffer>();
  let counter = 0;
  let baseUrl = '';
  const error = (status: number, message: string, code: string | null = null): FakeAnswer => ({
    status,
    json: { error: { message, type: 'invalid_request_error', param: null, code } },
  });

  const server = await startFakeHttpServer(async (request) => {
    // Generated files are served without a key, as LocalAI serves them.
    const image = /^\/generated-images\/(\w+)\.png$/.exec(request.path);
    if (request.method === 'GET' && image) {
      const bytes = stored.get(image[1] ?? '');
      return bytes ? { status: 200, raw: bytes, contentType: 'image/png' } : { status: 404, raw: 'gone' };
    }
    if (options.apiKey !== null && request.headers.authorization !== `Bearer ${options.apiKey}`)
      return error(401, 'Incorrect API key provided', 'invalid_api_key');
    if (request.method === 'GET' && request.path === '/v1/models')
      return {
        status: 200,
        json: { object: 'list', data: options.models.map((id) => ({ id, object: 'model' })) },
      };
    let params: Record<string, unknown>;
    let call: CompatibleCall;
    if (request.path === '/v1/images/generations') {
      params = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
      call = { endpoint: 'generations', params, images: 0, mask: false };
    } else if (request.path === '/v1/images/edits') {
      const form = await new Response(new Uint8Array(request.body), {
        headers: { 'content-type': String(request.headers['content-type']) },
      }).formData();
      params = {};
      let images = 0;
      let mask = false;
      for (const [field, value] of form.entries()) {
        if (field === 'image' || field === 'image[]') images++;
        else if (field === 'mask') mask = true;
        else params[field] = value;
      }
      if (images === 0) return error(400, 'image is required');
      call = { endpoint: 'edits', params, images, mask };
    } else {
      return { status: 404, raw: 'not found', contentType: 'text/plain' };
    }
    calls.push(call);
    const scripted = queue.shift();
    if (scripted?.kind === 'hang') return { hang: true };
    if (scripted?.kind === 'close') {
      // The server goes away mid-call: the connection is cut without an answer.
      request.socket?.destroy();
      return { hang: true };
    }
    if (scripted?.kind === 'error') return error(scripted.status, scripted.message, scripted.code);
    if (!options.models.includes(String(params.model)))
      return error(404, `model ${String(params.model)} not found`, 'model_not_found');
    const size = /^(\d+)x(\d+)$/.exec(String(params.size));
    if (!size || (options.sizes && !options.sizes.includes(String(params.size))))
      return error(400, `unsupported size ${String(params.size)}`);
    // Made at an eighth of the size asked for: the same shape, cheap to encode.
    const png = await solidPng(Math.max(8, Number(size[1]) >> 3), Math.max(8, Number(size[2]) >> 3));
    if (params.response_format === 'url') {
      const id = `img${++counter}`;
      stored.set(id, png);
      // Absolute (LocalAI) or, with `relativeUrls`, a path on the server itself.
      const url = `${options.relativeUrls ? '' : baseUrl}/generated-images/${id}.png`;
      return { status: 200, json: { created: 1, data: [{ url }] } };
    }
    return { status: 200, json: { created: 1, data: [{ b64_json: png.toString('base64') }] } };
  });
  baseUrl = server.baseUrl;
  return { ...server, calls, script: (...answers) => void queue.push(...answers) };
}
