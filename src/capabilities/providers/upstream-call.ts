/**
 * One HTTP call to an upstream with a deadline and a classified transport failure, and the
 * synchronous JSON call built on it. Adapters never throw for an upstream's behaviour: these return data.
 */
import type { Dispatcher, FormData } from 'undici';
import { lazyDispatcher, undici } from '../../infra/outbound/undici.js';
import type { ProviderFailure } from './provider.js';
import { parseJson } from './upstream-json.js';

/**
 * An HTTP client for one upstream. Undici's own timeouts are switched off (`headersTimeout` is
 * 300 s by default, which would cut a 4K generation short); every call carries its own deadline
 * through its AbortSignal instead. The connect timeout stays short and separate, so a deadline
 * that fires almost always means the request had been sent (see `requestSent` below). The agent
 * (and undici) is created at the first call: adapters are built at start, most never call.
 */
export function createUpstreamDispatcher(connectTimeoutMs = 10_000): Dispatcher {
  return lazyDispatcher(
    () => new (undici().Agent)({ headersTimeout: 0, bodyTimeout: 0, connect: { timeout: connectTimeoutMs } }),
  );
}

export interface UpstreamCall {
  url: string;
  method: 'GET' | 'POST' | 'PUT';
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

/** The statuses `fetch` follows; with `redirect: 'error'` (never followed) they failed the call. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The answer's headers as a `Headers` (adapters read `retry-after` and the like from it). */
function headersOf(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}

/**
 * Sends one request under `timeoutMs`; never throws for network trouble. It goes through the
 * dispatcher's `request` rather than `fetch`: the WHATWG layer (Request, Response, web streams) was
 * most of an answer's CPU on a node with a thousand calls in flight. What `fetch` added is kept:
 * `accept` and a `user-agent` when the adapter sets none, and a redirect is never followed (it fails
 * the call as a network error, as `redirect: 'error'` did). No `accept-encoding` is sent, so
 * answers come unencoded.
 */
export async function callUpstream(call: UpstreamCall): Promise<UpstreamAnswer> {
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = AbortSignal.any([call.signal, timeout]);
  const maxBytes = call.maxResponseBytes ?? 256 * 1024 * 1024;
  let response: Dispatcher.ResponseData | undefined;
  try {
    const url = new URL(call.url);
    response = await call.dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: call.method,
      headers: { accept: '*/*', 'user-agent': 'undici', ...call.headers },
      body: call.body ?? null,
      signal,
    });
    if (REDIRECTS.has(response.statusCode) && response.headers.location !== undefined) {
      await response.body.dump().catch(() => undefined);
      return { kind: 'transport_error', cause: 'network', requestSent: true, detail: 'network error' };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > maxBytes) {
        response.body.destroy();
        return {
          kind: 'transport_error',
          cause: 'network',
          requestSent: true,
          detail: `response larger than ${maxBytes} bytes`,
        };
      }
      chunks.push(chunk);
    }
    return {
      kind: 'response',
      status: response.statusCode,
      headers: headersOf(response.headers),
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

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
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
): Promise<{ json: unknown; headers: Headers } | ProviderFailure> {
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
  return { json, headers: answer.headers };
}

export type { FormData };

/** An empty multipart body: undici's FormData (undici is loaded at the first one). */
export function newFormData(): FormData {
  return new (undici().FormData)();
}
