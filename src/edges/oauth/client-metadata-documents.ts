import { readFile } from 'node:fs/promises';

/** The largest metadata document read (the draft's advice: 5 kilobytes). */
export const CLIENT_DOCUMENT_MAX_BYTES = 5 * 1024;
/** How a document is fetched (src/core.ts builds the safe fetcher): small JSON, no redirects, 5 s. */
export const CLIENT_DOCUMENT_FETCH = {
  maxBytes: CLIENT_DOCUMENT_MAX_BYTES,
  totalTimeoutMs: 5_000,
  maxRedirects: 0,
  accept: 'application/json',
  userAgent: 'Atelier/0.1 (OAuth client metadata)',
};
/** How long a document is kept when its answer states no caching rule. */
const DEFAULT_CACHE_MS = 5 * 60_000;
/** The longest a document is kept, whatever its Cache-Control says. */
const MAX_CACHE_MS = 24 * 60 * 60_000;
/** Documents kept at once (the oldest goes first). */
export const MAX_CACHED = 1000;

/** A downloaded body on disk, as the safe fetcher gives it. */
export interface FetchedDocument {
  path: string;
  contentType?: string;
  cacheControl?: string;
  cleanup(): Promise<void>;
}
/** The safe fetcher's download (src/infra/outbound): every hop vetted, the body capped. */
export type FetchDocument = (url: string, options: { subject: string }) => Promise<FetchedDocument>;

/** A client identified by its metadata document: what /authorize and the store keep of it. */
export interface DocumentClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  client_uri?: string;
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  /** Marks a client read from its document (not registered): the consent page names its host. */
  client_id_metadata_document: true;
}

/** Whether a client id is a URL (a metadata document's address) rather than a registered id. */
export const isUrlClientId = (clientId: string): boolean =>
  /^[a-z][a-z0-9+.-]*:/i.test(clientId) && URL.canParse(clientId);

const SUBJECT = 'The app’s client ID metadata document';

/**
 * Why a URL client id cannot be a metadata document's address (draft-ietf-oauth-client-id-
 * metadata-document §3): https, a path, no dot segments, no fragment, no credentials.
 */
function clientIdProblem(clientId: string): string | undefined {
  const url = new URL(clientId);
  if (url.protocol !== 'https:')
    return 'The app’s client_id is a URL that is not https: a client ID metadata document must be served over https.';
  if (url.username !== '' || url.password !== '' || url.hash !== '' || clientId.includes('#'))
    return 'The app’s client_id URL must not carry credentials or a fragment.';
  const path =
    clientId
      .slice(clientId.indexOf('//') + 2)
      .replace(/^[^/?]*/, '')
      .split('?')[0] ?? '';
  if (path === '' || path === '/')
    return 'The app’s client_id URL has no path: a client ID metadata document is named by a path.';
  if (path.split('/').some((segment) => segment === '.' || segment === '..'))
    return 'The app’s client_id URL must not contain "." or ".." path segments.';
  return undefined;
}

const isJsonType = (type: string | undefined) => {
  const essence = (type ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(essence);
};

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;

/** The document's rules (§4.1 and the MCP spec): its own URL as client_id, a name, redirect URIs, no secret. */
function clientOf(clientId: string, body: unknown): DocumentClient | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return `${SUBJECT} is not a JSON object.`;
  const doc = body as Record<string, unknown>;
  if (doc.client_id !== clientId)
    return `${SUBJECT} names a different client_id than the address it was read from.`;
  const name = typeof doc.client_name === 'string' ? doc.client_name.trim() : '';
  if (name === '') return `${SUBJECT} has no client_name.`;
  const redirects = strings(doc.redirect_uris);
  if (!redirects || redirects.length === 0 || !redirects.every((uri) => URL.canParse(uri)))
    return `${SUBJECT} lists no redirect_uris (absolute URLs).`;
  if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined)
    return `${SUBJECT} carries a client_secret; a client identified by a document has none.`;
  const method = doc.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    return `${SUBJECT} asks for token_endpoint_auth_method "${String(method).slice(0, 40)}"; Atelier accepts only "none" for such clients.`;
  return {
    client_id: clientId,
    client_name: name.slice(0, 200),
    redirect_uris: redirects,
    ...(typeof doc.client_uri === 'string' ? { client_uri: doc.client_uri } : {}),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    client_id_metadata_document: true,
  };
}

/** How long an answer may be kept: its Cache-Control (no-store/no-cache: not kept), within bounds. */
export function cacheMsOf(cacheControl: string | undefined): number {
  if (cacheControl === undefined) return DEFAULT_CACHE_MS;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache' || d === 'private')) return 0;
  const maxAge = directives.find((d) => d.startsWith('max-age='))?.slice('max-age='.length);
  if (maxAge === undefined || !/^\d+$/.test(maxAge)) return DEFAULT_CACHE_MS;
  return Math.min(Number(maxAge) * 1000, MAX_CACHE_MS);
}

/**
 * Clients identified by a client ID metadata document (MCP authorization 2025-11-25; draft-ietf-
 * oauth-client-id-metadata-document): the client_id is an https URL, read through the safe fetcher
 * (public addresses only, no redirects, at most 5 KiB, JSON), its rules checked, and kept per its
 * Cache-Control (at most a day; 5 minutes when it says nothing) in this node's memory. A failure
 * is never kept: the next request reads the document again.
 */
export function createClientMetadataDocuments(deps: { fetch: FetchDocument; now: () => number }) {
  const cache = new Map<string, { client: DocumentClient; until: number }>();

  async function read(clientId: string): Promise<DocumentClient | string> {
    let fetched: FetchedDocument;
    try {
      fetched = await deps.fetch(clientId, { subject: SUBJECT });
    } catch (err) {
      if ((err as Error).name === 'TooLarge')
        return `${SUBJECT} is larger than ${CLIENT_DOCUMENT_MAX_BYTES / 1024} KiB.`;
      return `${(err as Error).message}.`.replace(/\.\.$/, '.');
    }
    try {
      if (!isJsonType(fetched.contentType)) return `${SUBJECT} is not served as JSON (application/json).`;
      let body: unknown;
      try {
        body = JSON.parse(await readFile(fetched.path, 'utf8'));
      } catch {
        return `${SUBJECT} is not valid JSON.`;
      }
      const client = clientOf(clientId, body);
      if (typeof client === 'string') return client;
      const keepMs = cacheMsOf(fetched.cacheControl);
      if (keepMs > 0) {
        if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
        cache.set(clientId, { client, until: deps.now() + keepMs });
      }
      return client;
    } finally {
      await fetched.cleanup();
    }
  }

  return {
    /** The client a URL client id names, or a sentence saying why it cannot be used. */
    async clientOf(clientId: string): Promise<DocumentClient | string> {
      const problem = clientIdProblem(clientId);
      if (problem) return problem;
      const kept = cache.get(clientId);
      if (kept && kept.until > deps.now()) return kept.client;
      cache.delete(clientId);
      return read(clientId);
    },
  };
}

export type ClientMetadataDocuments = ReturnType<typeof createClientMetadataDocuments>;
