/**
 * OpenAI-compatible image servers (LocalAI, stable-diffusion.cpp's server, vLLM-Omni, SD.Next,
 * another gateway or another Atelier): the OpenAI Images adapter (openai-provider.ts) at the
 * server's own base URL, with its own key (or none) and the quirks it declares in the catalog's
 * `upstreams` block (docs/providers.md, "OpenAI-compatible servers"):
 * - `sizes`: `"free"` (any `WxH`: Atelier's own pixel size for the aspect and size class is sent)
 *   or the fixed list the server makes (the listed size nearest the asked shape, then its area);
 * - `response`: `url` or `b64_json`, sent as `response_format`; a `url` answer is copied at once
 *   through the safe fetcher with this upstream's host (and only it) allowed besides public ones;
 * - `edits` and `masks`: whether `/v1/images/edits` (and its `mask`) are offered;
 * - `extraBody`: fields sent with every call (e.g. `steps`, `negative_prompt`).
 * Its model list is `GET /v1/models`, as OpenAI's.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { DomainError } from '../../base/domain/errors.js';
import { createSafeFetcher } from '../../infra/outbound/safe-fetcher.js';
import { type CompatibleQuirks, createOpenAIProvider } from './openai-provider.js';
import type { ImageProvider, ProviderRequest } from './provider.js';

/** Provider names Atelier itself uses: an upstream may not take them. */
export const BUILT_IN_PROVIDERS = ['local', 'gemini', 'openai', 'replicate', 'fal', 'comfyui'];

const SIZE = /^([1-9][0-9]{1,4})x([1-9][0-9]{1,4})$/;

const upstreamNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,31}$/, 'upstream name: lowercase letters, digits and "-", 1-32 long');

/** One OpenAI-compatible server as the catalog declares it. */
export const compatibleUpstreamSchema = z
  .object({
    kind: z.literal('openai-compatible'),
    /** The server's base URL, without `/v1` (requests go to `{baseUrl}/v1/images/…`). */
    baseUrl: z.url({ protocol: /^https?$/ }),
    /** The NAME of the environment variable that holds its key; absent for a server without keys. */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]{0,63}$/, 'an environment variable name (A-Z, 0-9, _)')
      .optional(),
    sizes: z
      .union([z.literal('free'), z.array(z.string().regex(SIZE, 'a size as WxH')).min(1)])
      .default('free'),
    response: z.enum(['url', 'b64_json']).default('b64_json'),
    edits: z.boolean().default(false),
    masks: z.boolean().default(false),
    extraBody: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export type CompatibleUpstream = z.infer<typeof compatibleUpstreamSchema>;

export const compatibleUpstreamsSchema = z
  .record(upstreamNameSchema, compatibleUpstreamSchema)
  .superRefine((upstreams, ctx) => {
    for (const name of Object.keys(upstreams).filter((key) => BUILT_IN_PROVIDERS.includes(key)))
      ctx.addIssue({ code: 'custom', path: [name], message: 'that name is a built-in provider' });
  });

/** The listed size nearest the request's shape, then its pixel count (log distances). */
export function nearestListedSize(sizes: readonly string[], width: number, height: number): string {
  const score = (size: string) => {
    const [, w, h] = SIZE.exec(size)?.map(Number) ?? [0, 1, 1];
    const shape = Math.abs(Math.log((w ?? 1) / (h ?? 1)) - Math.log(width / height));
    const area = Math.abs(Math.log(((w ?? 1) * (h ?? 1)) / (width * height)));
    return shape * 1000 + area;
  };
  return sizes.reduce((best, size) => (score(size) < score(best) - 1e-9 ? size : best));
}

/** The request's size on a server with `sizes`: the edit's reference shape when it keeps it. */
function sizeFor(sizes: CompatibleUpstream['sizes'], request: ProviderRequest): string {
  const first = request.references[0];
  const keep = request.keepReferenceAspect && request.mode !== 'text' && first;
  const ratio = keep ? first.width / first.height : request.width / request.height;
  const area = request.width * request.height;
  const width = Math.sqrt(area * ratio);
  const height = Math.sqrt(area / ratio);
  if (sizes === 'free') {
    const snap = (v: number) => Math.max(16, Math.round(v / 16) * 16);
    return keep ? `${snap(width)}x${snap(height)}` : `${request.width}x${request.height}`;
  }
  return nearestListedSize(sizes, width, height);
}

/** `host:port` of a base URL, as the safe fetcher's allow-list writes it. */
function hostEntry(baseUrl: string): string {
  const url = new URL(baseUrl);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname.replace(/^\[|\]$/g, '')}:${port}`;
}

export interface CompatibleProviderOptions {
  name: string;
  upstream: CompatibleUpstream;
  requestTimeoutMs?: number;
  now?: () => number;
}

/** The OpenAI adapter for one declared OpenAI-compatible server. */
export function createOpenAICompatibleProvider({
  name,
  upstream,
  requestTimeoutMs,
  now,
}: CompatibleProviderOptions): ImageProvider {
  // Results are fetched safely, with this server's own host allowed (a local server is the point).
  const fetcher = createSafeFetcher({
    allowedHosts: [hostEntry(upstream.baseUrl)],
    userAgent: 'Atelier/0.1 (result copy)',
  });
  const quirks: CompatibleQuirks = {
    name,
    keyed: upstream.apiKeyEnv !== undefined,
    size: (request) => sizeFor(upstream.sizes, request),
    responseFormat: upstream.response,
    edits: upstream.edits,
    masks: upstream.masks,
    extraBody: upstream.extraBody,
    async fetchUrl(url, signal) {
      try {
        const file = await fetcher.fetchToFile(url, { subject: 'the result URL', signal });
        try {
          return await readFile(file.path);
        } finally {
          await file.cleanup();
        }
      } catch (error) {
        return `could not download the result (${error instanceof DomainError ? error.message : 'download failed'})`;
      }
    },
  };
  return createOpenAIProvider({
    baseUrl: upstream.baseUrl.replace(/\/v1\/?$/, ''),
    expectedDurationMs: 30_000,
    compatible: quirks,
    ...(requestTimeoutMs !== undefined && { requestTimeoutMs }),
    ...(now && { now }),
  });
}
