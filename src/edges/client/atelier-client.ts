import type { z } from 'zod';
import {
  type AccountStatus,
  accountStatusSchema,
  errorBodySchema,
  type GenerateRequest,
  type GenerateResponse,
  generateResponseSchema,
  type HistoryPage,
  historyPageSchema,
  type ModelList,
  modelListSchema,
  type Quote,
  quoteSchema,
  type TaskRecord,
  type TasksResponse,
  taskRecordSchema,
  tasksResponseSchema,
  type UploadResult,
  type UsageReport,
  uploadResultSchema,
  usageReportSchema,
} from './api-schemas.js';

export * from './api-schemas.js';

/** Error types the API answers with (DESIGN.md §2); other strings may appear from newer servers. */
export type KnownApiErrorType =
  | 'invalid_request'
  | 'upstream_key_missing'
  | 'unauthorized'
  | 'invalid_api_key'
  | 'insufficient_scope'
  | 'forbidden'
  | 'forbidden_model'
  | 'not_found'
  | 'conflict'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'invalid_image'
  | 'too_many_requests'
  | 'quota_exceeded'
  | 'budget_exceeded'
  | 'headers_too_large'
  | 'internal_error'
  | 'upstream_error'
  | 'fetch_failed'
  | 'service_unavailable'
  /** Client-side: the server answered, but not with the documented shape. */
  | 'unexpected_response';

/** The server answered with an error (`{error:{type,message}}`) or with a body the client cannot read. */
export class AtelierApiError extends Error {
  readonly status: number;
  readonly type: KnownApiErrorType | (string & {});

  constructor(status: number, type: string, message: string) {
    super(message);
    this.name = 'AtelierApiError';
    this.status = status;
    this.type = type;
  }
}

/** No answer from the server: refused, DNS failure, reset, or timeout. */
export class AtelierConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AtelierConnectionError';
  }
}

export interface AtelierClientOptions {
  /** Where Atelier listens, e.g. `http://localhost:8080`; a path prefix is kept. */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Per-request limit; default 60 s (uploads make the server fetch and re-host up to 25 MB). */
  timeoutMs?: number;
}

export interface RequestOptions {
  /** Cancels the request; the reason is rethrown as is. */
  signal?: AbortSignal;
}

export type UploadInput = { source_url: string } | { bytes: Uint8Array; contentType: string };

export interface HistoryQuery {
  page?: number;
  limit?: number;
}

interface Call<S extends z.ZodType> {
  method: 'GET' | 'POST';
  path: string;
  query?: string;
  body?: { json: unknown } | { bytes: Uint8Array; contentType: string };
  schema: S;
  signal: AbortSignal | undefined;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/** A typed client of Atelier's `/api/v1`; every error becomes an AtelierApiError or AtelierConnectionError. */
export function createAtelierClient(options: AtelierClientOptions) {
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const authorization = `Bearer ${options.apiKey}`;

  async function call<S extends z.ZodType>({
    method,
    path,
    query,
    body,
    schema,
    signal,
  }: Call<S>): Promise<z.infer<S>> {
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

    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, { method, headers, body: payload, signal: combined });
      text = await response.text();
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

  return {
    baseUrl,

    /** POST /api/v1/generate: creates one task per image and answers at once with their ids. */
    generate(request: GenerateRequest, opts: RequestOptions = {}): Promise<GenerateResponse> {
      return call({
        method: 'POST',
        path: '/generate',
        body: { json: request },
        schema: generateResponseSchema,
        signal: opts.signal,
      });
    },

    /**
     * POST /api/v1/quotes: what a generate body is expected to cost and the most it can; its quote_id,
     * sent with the same body, binds that maximum. Nothing is created.
     */
    quote(request: GenerateRequest, opts: RequestOptions = {}): Promise<Quote> {
      return call({
        method: 'POST',
        path: '/quotes',
        body: { json: request },
        schema: quoteSchema,
        signal: opts.signal,
      });
    },

    /** GET /api/v1/tasks/{id}: one task record; an unknown id is a 404 not_found. */
    getTask(taskId: string, opts: RequestOptions = {}): Promise<TaskRecord> {
      return call({
        method: 'GET',
        path: `/tasks/${encodeURIComponent(taskId)}`,
        schema: taskRecordSchema,
        signal: opts.signal,
      });
    },

    /**
     * POST /api/v1/tasks/{id}/cancel: an unfinished task ends failed with error "Canceled" (repeating it
     * answers the same); a finished one is a 409 conflict.
     */
    cancelTask(taskId: string, opts: RequestOptions = {}): Promise<TaskRecord> {
      return call({
        method: 'POST',
        path: `/tasks/${encodeURIComponent(taskId)}/cancel`,
        schema: taskRecordSchema,
        signal: opts.signal,
      });
    },

    /** GET /api/v1/tasks?ids=…: up to 20 records in the order of `taskIds`; unknown ids come back failed. */
    getTasks(taskIds: readonly string[], opts: RequestOptions = {}): Promise<TasksResponse> {
      // Commas stay literal (they separate ids); each id is encoded on its own.
      return call({
        method: 'GET',
        path: '/tasks',
        query: `ids=${taskIds.map((id) => encodeURIComponent(id)).join(',')}`,
        schema: tasksResponseSchema,
        signal: opts.signal,
      });
    },

    /** POST /api/v1/upload: re-hosts an image from a public URL, or from bytes sent directly. */
    upload(input: UploadInput, opts: RequestOptions = {}): Promise<UploadResult> {
      const body =
        'source_url' in input
          ? { json: { source_url: input.source_url } }
          : { bytes: input.bytes, contentType: input.contentType };
      return call({ method: 'POST', path: '/upload', body, schema: uploadResultSchema, signal: opts.signal });
    },

    /** GET /api/v1/history: the account's generations, newest first; omitted page/limit take server defaults. */
    history(query: HistoryQuery = {}, opts: RequestOptions = {}): Promise<HistoryPage> {
      const params = new URLSearchParams();
      if (query.page !== undefined) params.set('page', String(query.page));
      if (query.limit !== undefined) params.set('limit', String(query.limit));
      return call({
        method: 'GET',
        path: '/history',
        query: params.toString(),
        schema: historyPageSchema,
        signal: opts.signal,
      });
    },

    /** GET /api/v1/models: every model with its modes, sizes, qualities, prices and lifecycle. */
    models(opts: RequestOptions = {}): Promise<ModelList> {
      return call({ method: 'GET', path: '/models', schema: modelListSchema, signal: opts.signal });
    },

    /** GET /api/v1/user/status: e-mail, tier and whether generation can reach an upstream. */
    userStatus(opts: RequestOptions = {}): Promise<AccountStatus> {
      return call({ method: 'GET', path: '/user/status', schema: accountStatusSchema, signal: opts.signal });
    },

    /** GET /api/v1/user/usage: images completed and failed per UTC day and model, and the tier's allowance. */
    userUsage(range: { from?: string; to?: string } = {}, opts: RequestOptions = {}): Promise<UsageReport> {
      const params = new URLSearchParams();
      if (range.from !== undefined) params.set('from', range.from);
      if (range.to !== undefined) params.set('to', range.to);
      return call({
        method: 'GET',
        path: '/user/usage',
        query: params.toString(),
        schema: usageReportSchema,
        signal: opts.signal,
      });
    },
  };
}

export type AtelierClient = ReturnType<typeof createAtelierClient>;

/** Validates and normalizes a base URL (http/https, no trailing slash); throws a readable Error. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`base URL "${raw}" is not a valid URL (expected e.g. http://localhost:8080)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`base URL "${raw}" must use http or https`);
  }
  if (url.search || url.hash) throw new Error(`base URL "${raw}" must not carry a query or fragment`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
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
