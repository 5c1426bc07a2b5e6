/**
 * What the upstream adapters share: one HTTP call with a deadline and a classified transport
 * failure, `Retry-After` parsing, the mapping of HTTP statuses to outcomes, secret scrubbing,
 * image sniffing and the downscaling that keeps inline reference images under a request limit.
 *
 * Adapters never throw for an upstream's behaviour: everything here returns data.
 */
import sharp from 'sharp';
import { Agent, type Dispatcher, FormData, fetch } from 'undici';
import { sniffImageType as imageTypeOf } from '../images/image-type.js';
import type { FailureCause, ProviderFailure, ReferenceImage } from './provider.js';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An HTTP client for one upstream. Undici's own timeouts are switched off (`headersTimeout` is
 * 300 s by default, which would cut a 4K generation short); every call carries its own deadline
 * through its AbortSignal instead. The connect timeout stays short and separate, so a deadline
 * that fires almost always means the request had been sent (see `requestSent` below).
 */
export function createUpstreamDispatcher(connectTimeoutMs = 10_000): Dispatcher {
  return new Agent({ headersTimeout: 0, bodyTimeout: 0, connect: { timeout: connectTimeoutMs } });
}

export interface UpstreamCall {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | FormData;
  timeoutMs: number;
  /** The engine's signal: aborting it is a cancel, not a timeout. */
  signal: AbortSignal;
  dispatcher: Dispatcher;
  /** Refuse bodies above this size (a 4K PNG in base64 is ~40 MB). */
  maxResponseBytes?: number;
}

export type UpstreamAnswer =
  | { kind: 'response'; status: number; headers: Headers; body: Buffer }
  | {
      kind: 'transport_error';
      cause: 'timeout' | 'network' | 'canceled';
      /** false only when the failure is known to precede sending (refused, DNS, connect timeout). */
      requestSent: boolean;
      detail: string;
    };

/** Error codes that can only happen before a byte of the request left this process. */
const CONNECT_PHASE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
]);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    current = cause;
  }
  return undefined;
}

/** Sends one request under `timeoutMs`; never throws for network trouble. */
export async function callUpstream(call: UpstreamCall): Promise<UpstreamAnswer> {
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = AbortSignal.any([call.signal, timeout]);
  const maxBytes = call.maxResponseBytes ?? 256 * 1024 * 1024;
  let response: Awaited<ReturnType<typeof fetch>> | undefined;
  try {
    response = await fetch(call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body ?? null,
      signal,
      dispatcher: call.dispatcher,
      redirect: 'error',
    });
    const chunks: Buffer[] = [];
    let size = 0;
    if (response.body) {
      for await (const chunk of response.body) {
        size += chunk.byteLength;
        if (size > maxBytes) {
          await response.body.cancel().catch(() => undefined);
          return {
            kind: 'transport_error',
            cause: 'network',
            requestSent: true,
            detail: `response larger than ${maxBytes} bytes`,
          };
        }
        chunks.push(Buffer.from(chunk));
      }
    }
    return {
      kind: 'response',
      status: response.status,
      headers: response.headers as Headers,
      body: Buffer.concat(chunks),
    };
  } catch (error) {
    // The engine's signal may carry its own deadline (AbortSignal.timeout): that is a timeout too
    // and must count against the upstream; any other abort is a cancel or a shutdown.
    const engineDeadline =
      call.signal.aborted && (call.signal.reason as { name?: unknown })?.name === 'TimeoutError';
    if (call.signal.aborted && !engineDeadline) {
      return {
        kind: 'transport_error',
        cause: 'canceled',
        requestSent: true,
        detail: 'aborted by the engine',
      };
    }
    if (timeout.aborted || engineDeadline) {
      return {
        kind: 'transport_error',
        cause: 'timeout',
        requestSent: true,
        detail: timeout.aborted
          ? `no complete answer within ${formatMs(call.timeoutMs)}`
          : 'no complete answer within the engine deadline',
      };
    }
    const code = errorCode(error);
    const sent = response !== undefined || code === undefined || !CONNECT_PHASE_CODES.has(code);
    return {
      kind: 'transport_error',
      cause: 'network',
      requestSent: sent,
      // The code only (an allow-listed shape): an error's message can quote what the peer sent.
      detail: code && /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? `network error ${code}` : 'network error',
    };
  }
}

function formatBytes(n: number): string {
  return n >= 1_000_000 ? `${Math.round(n / 100_000) / 10} MB` : `${Math.ceil(n / 1000)} kB`;
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/**
 * Milliseconds to wait from `Retry-After` (delta-seconds or an HTTP date) or the non-standard
 * `retry-after-ms`; undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers, nowMs: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Key shapes of the supported upstreams, scrubbed even when the key itself is not known here. */
const KEY_PATTERNS = [/AIza[0-9A-Za-z_-]{20,}/g, /\bsk-[A-Za-z0-9_-]{8,}/g, /\br8_[A-Za-z0-9]{8,}/g];

/**
 * An upstream message fit for a task's `error` and for logs: secrets removed (some upstreams
 * echo the key they refused), whitespace collapsed, bounded in length.
 */
export function safeMessage(
  text: string,
  secrets: ReadonlyArray<string | null | undefined> = [],
  maxLength = 500,
): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, '[redacted]');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > maxLength ? `${out.slice(0, maxLength - 1)}…` : out;
}

/** Builds an adapter's failures, every message prefixed with the provider's label. */
export function failureFactory(label: string) {
  return (message: string, fields: Omit<ProviderFailure, 'kind' | 'message'>): ProviderFailure => ({
    kind: 'failed',
    message: `${label}: ${message}`,
    ...fields,
  });
}

/** The failure for a call that never produced a complete HTTP answer. */
export function transportFailure(
  label: string,
  answer: Extract<UpstreamAnswer, { kind: 'transport_error' }>,
): ProviderFailure {
  return {
    kind: 'failed',
    message: `${label}: ${answer.detail}`,
    retryable: true,
    maybeAccepted: answer.requestSent,
    cause: answer.cause,
  };
}

/**
 * A synchronous JSON call (Gemini, OpenAI): sends it, maps a transport error and a non-2xx answer
 * to the provider's failures, and parses the body. An unreadable 2xx body may mean the image was
 * made and billed, so it is retryable but `maybeAccepted`.
 */
export async function callForJson(
  label: string,
  call: UpstreamCall,
  httpFailure: (status: number, headers: Headers, body: Buffer) => ProviderFailure,
): Promise<{ json: unknown } | ProviderFailure> {
  const answer = await callUpstream(call);
  if (answer.kind === 'transport_error') return transportFailure(label, answer);
  if (answer.status < 200 || answer.status >= 300)
    return httpFailure(answer.status, answer.headers, answer.body);
  const json = parseJson(answer.body);
  if (json === undefined) {
    return {
      kind: 'failed',
      message: `${label}: the answer is not valid JSON`,
      retryable: true,
      maybeAccepted: true,
      cause: 'bad_response',
    };
  }
  return { json };
}

/** Outcome class of an HTTP error status, before any provider-specific refinement. */
export function statusClass(status: number): { retryable: boolean; cause: FailureCause } {
  if (status === 429) return { retryable: true, cause: 'rate_limited' };
  if (status === 401 || status === 403) return { retryable: false, cause: 'unauthorized' };
  if (status === 408) return { retryable: true, cause: 'timeout' };
  if (status >= 500) return { retryable: true, cause: 'upstream_error' };
  return { retryable: false, cause: 'invalid_request' };
}

/**
 * Media type of encoded image bytes an upstream answered with, from their magic numbers (the
 * project's one sniffer); undefined for anything but png/jpeg/webp/gif, the formats a result is
 * rehosted in (a BMP result would not be readable by libvips).
 */
export function sniffImageType(bytes: Buffer): string | undefined {
  const type = imageTypeOf(bytes);
  return type === null || type === 'image/bmp' ? undefined : type;
}

/** Length of the base64 text for `n` bytes. */
export function base64Length(n: number): number {
  return 4 * Math.ceil(n / 3);
}

export interface EncodedImage {
  bytes: Buffer;
  contentType: string;
  width: number;
  height: number;
}

/** The failure text for a reference no decoder can read (1-based position, no decoder internals). */
function undecodableReference(index: number): string {
  return `reference image ${index + 1} could not be decoded (corrupt or truncated image data)`;
}

/** One smaller encoding of an image: JPEG when opaque, WebP when it has transparency. Throws on undecodable bytes. */
async function reencode(
  source: Buffer,
  width: number,
  height: number,
  acceptedTypes: readonly string[],
): Promise<{ bytes: Buffer; contentType: string } | { error: string }> {
  const { hasAlpha } = await sharp(source, { animated: false }).metadata();
  const contentType = hasAlpha ? 'image/webp' : 'image/jpeg';
  if (!acceptedTypes.includes(contentType)) {
    return { error: `references are too large for one request and cannot be re-encoded as ${contentType}` };
  }
  const pipeline = sharp(source, { animated: false }).resize(width, height, { fit: 'fill' });
  const bytes = hasAlpha
    ? await pipeline.webp({ quality: 90 }).toBuffer()
    : await pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
  return { bytes, contentType };
}

/**
 * Re-encodes references whose type the upstream does not take (GIF, BMP…) as PNG, then, while
 * their base64 total exceeds `budgetBytes`, shrinks the largest one. Returns a message instead
 * when even small versions do not fit.
 */
export async function fitReferences(
  references: readonly ReferenceImage[],
  {
    acceptedTypes,
    budgetBytes,
    minSide = 256,
  }: { acceptedTypes: readonly string[]; budgetBytes: number; minSide?: number },
): Promise<EncodedImage[] | { error: string }> {
  const images: EncodedImage[] = [];
  for (const [i, reference] of references.entries()) {
    if (acceptedTypes.includes(reference.contentType)) {
      images.push({ ...reference });
      continue;
    }
    try {
      const bytes = await sharp(reference.bytes, { animated: false }).png().toBuffer();
      images.push({ bytes, contentType: 'image/png', width: reference.width, height: reference.height });
    } catch {
      return { error: undecodableReference(i) };
    }
  }
  const total = () => images.reduce((sum, image) => sum + base64Length(image.bytes.length), 0);
  // Images already shrunk to `minSide` are left alone; the loop ends when nothing can shrink.
  const atFloor = new Set<number>();
  for (let round = 0; round < 8 * images.length && total() > budgetBytes; round++) {
    let largest = -1;
    for (let i = 0; i < images.length; i++) {
      if (atFloor.has(i)) continue;
      if (largest < 0 || (images[i]?.bytes.length ?? 0) > (images[largest]?.bytes.length ?? 0)) largest = i;
    }
    const image = images[largest];
    if (!image) break;
    const others = total() - base64Length(image.bytes.length);
    const share = Math.max(budgetBytes - others, budgetBytes / images.length);
    const wanted = Math.min(0.9, Math.sqrt(share / base64Length(image.bytes.length)) * 0.9);
    const floor = Math.min(1, minSide / Math.min(image.width, image.height));
    const scale = Math.max(wanted, floor);
    if (scale >= 1 || scale === floor) atFloor.add(largest);
    const width = Math.max(1, Math.round(image.width * Math.min(scale, 1)));
    const height = Math.max(1, Math.round(image.height * Math.min(scale, 1)));
    // JPEG for opaque images, WebP where transparency must survive: both far smaller than PNG.
    const shrunk = await reencode(image.bytes, width, height, acceptedTypes).catch(() => ({
      error: undecodableReference(largest),
    }));
    if ('error' in shrunk) return shrunk;
    const { bytes, contentType } = shrunk;
    if (bytes.length < image.bytes.length) images[largest] = { bytes, contentType, width, height };
    else atFloor.add(largest);
  }
  if (total() > budgetBytes) {
    return {
      error: `the reference images do not fit in one request (${formatBytes(total())} of base64 after downscaling; limit ${formatBytes(budgetBytes)})`,
    };
  }
  return images;
}

export { FormData };
