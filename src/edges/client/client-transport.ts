import type { z } from 'zod';
import { errorBodySchema } from './api-schemas.js';
import { AtelierApiError, AtelierConnectionError } from './client-errors.js';

/** Where and as whom the client calls: the normalized base URL, its fetch, the per-request limit. */
export interface Transport {
  baseUrl: string;
  fetchImpl: typeof fetch;
  timeoutMs: number;
  authorization: string;
}

/** One call of `/api/v1`: its method, path, query and body, and the schema its answer must match. */
export interface Call<S extends z.ZodType> {
  method: 'GET' | 'POST';
  path: string;
  query?: string;
  body?: { json: unknown } | { bytes: Uint8Array; contentType: string };
  schema: S;
  signal: AbortSignal | undefined;
}

/** A call's answer, parsed against its schema; every failure an AtelierApiError or AtelierConnectionError. */
export async function callApi<S extends z.ZodType>(transport: Transport, call: Call<S>): Promise<z.infer<S>> {
  const { response, text } = await send(transport, call);
  return readAnswer(call, response, text);
}

/** The request sent and its answer's text read; no answer at all is an AtelierConnectionError. */
async function send(
  { baseUrl, fetchImpl, timeoutMs, authorization }: Transport,
  { method, path, query, body, signal }: Call<z.ZodType>,
): Promise<{ response: Response; text: string }> {
  const url = `${baseUrl}/api/v1${path}${query ? `?${query}` : ''}`;
  const headers: Record<string, string> = { authorization, accept: 'application/json' };
  let payload: BodyInit | undefined;
  if (body && 'json' in body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body) {
    headers['content-type'] = body.contentType;
    // The DOM typings only take ArrayBuffer-backed views; fetch reads any view's bytes the same way.
    payload = body.bytes as Uint8Array<ArrayBuffer>;
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const response = await fetchImpl(url, { method, headers, body: payload, signal: combined });
    return { response, text: await response.text() };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timeout.aborted) {
      throw new AtelierConnectionError(
        `Atelier at ${baseUrl} did not answer ${method} ${path} within ${timeoutMs} ms`,
        {
          cause: error,
        },
      );
    }
    throw new AtelierConnectionError(`Cannot reach Atelier at ${baseUrl}: ${describeNetworkError(error)}`, {
      cause: error,
    });
  }
}

/** The answer's body as the schema reads it; an error body, or one not understood, is an AtelierApiError. */
function readAnswer<S extends z.ZodType>(
  { method, path, schema }: Call<S>,
  response: Response,
  text: string,
): z.infer<S> {
  const json = parseJson(text);
  if (!response.ok) {
    const parsed = errorBodySchema.safeParse(json);
    if (parsed.success) {
      throw new AtelierApiError(response.status, parsed.data.error.type, parsed.data.error.message);
    }
    throw new AtelierApiError(
      response.status,
      'unexpected_response',
      `${method} ${path} answered HTTP ${response.status} without an Atelier error body${snippet(text)}`,
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
    throw new AtelierApiError(
      response.status,
      'unexpected_response',
      `${method} ${path} answered a body this client does not understand (${problems.join('; ')})`,
    );
  }
  return parsed.data;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function snippet(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  if (!trimmed) return '';
  return `: ${trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed}`;
}

function describeNetworkError(error: unknown): string {
  // undici wraps the system error ("fetch failed") and keeps the useful part in `cause`.
  const cause =
    error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code) return cause.code;
  if (cause?.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
