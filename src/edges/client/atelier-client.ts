import {
  accountMethods,
  type CallApi,
  creationMethods,
  libraryMethods,
  taskMethods,
} from './client-methods.js';
import { callApi, type Transport } from './client-transport.js';

export * from './api-schemas.js';
export { AtelierApiError, AtelierConnectionError, type KnownApiErrorType } from './client-errors.js';
export type { HistoryQuery, RequestOptions, UploadInput } from './client-methods.js';

export interface AtelierClientOptions {
  /** Where Atelier listens, e.g. `http://localhost:8080`; a path prefix is kept. */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Per-request limit; default 60 s (uploads make the server fetch and re-host up to 25 MB). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/** A typed client of Atelier's `/api/v1`; every error becomes an AtelierApiError or AtelierConnectionError. */
export function createAtelierClient(options: AtelierClientOptions) {
  const transport: Transport = {
    baseUrl: normalizeBaseUrl(options.baseUrl),
    fetchImpl: options.fetch ?? globalThis.fetch,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    authorization: `Bearer ${options.apiKey}`,
  };
  const call: CallApi = (request) => callApi(transport, request);
  return {
    baseUrl: transport.baseUrl,
    ...creationMethods(call),
    ...taskMethods(call),
    ...libraryMethods(call),
    ...accountMethods(call),
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
