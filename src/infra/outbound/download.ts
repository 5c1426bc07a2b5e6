import { randomUUID } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { FetchFailed } from '../../base/domain/errors.js';
import type { AddressPolicy, VettedTarget } from './address-policy.js';
import { outboundDeadline, tooLarge } from './outbound-errors.js';
import type { ConnectionState, PinnedConnector } from './pinned-connector.js';

/** A downloaded body on disk; the caller removes it with `cleanup`. */
export interface FetchedFile {
  path: string;
  bytes: number;
  /** The answer's Content-Type and Cache-Control, as sent (absent when not sent). */
  contentType?: string;
  cacheControl?: string;
  cleanup(): Promise<void>;
}

export interface DownloadLimits {
  /** Largest accepted body, counted after content decoding. */
  maxBytes: number;
  /** Time allowed for the whole fetch: every lookup, redirect and the full body. */
  totalTimeoutMs: number;
  /** Redirects followed before giving up. */
  maxRedirects: number;
  /** Where downloads are written. */
  tempDir: string;
  userAgent: string;
  /** Sent as Accept. Default image/*. */
  accept?: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Our own disk failing is an internal error, not the source's fault: it surfaces as a 500. */
class LocalDiskError extends Error {
  override name = 'LocalDiskError';
}

/**
 * Downloads caller-named URLs to temp files: every hop (the first and each redirect) is vetted by
 * the policy and dialled through the pinned connector, and the body is capped after decoding.
 */
export function createDownloader(policy: AddressPolicy, connector: PinnedConnector, limits: DownloadLimits) {
  const { maxBytes, totalTimeoutMs, maxRedirects, tempDir, userAgent } = limits;
  const accept = limits.accept ?? 'image/*';

  /** Opens one GET whose socket can only go to the vetted addresses. */
  async function request(target: VettedTarget, signal: AbortSignal, connection: ConnectionState) {
    const { client, state } = connector.open(target, signal, totalTimeoutMs);
    try {
      const response = await client.request({
        path: `${target.url.pathname}${target.url.search}`,
        method: 'GET',
        headers: { 'user-agent': userAgent, accept, 'accept-encoding': 'identity' },
        signal,
      });
      return { response, client, state };
    } catch (err) {
      connection.connected = state.connected;
      await client.destroy().catch(() => {});
      throw err;
    }
  }

  /**
   * Downloads `url` to a temp file. Errors name `subject` (`source_url`, `the result URL`):
   * InvalidInput for a refused URL, FetchFailed for DNS, connection, timeout, non-2xx or a bad
   * body, TooLarge over the cap.
   */
  async function fetchToFile(
    url: string,
    opts: { subject: string; signal?: AbortSignal },
  ): Promise<FetchedFile> {
    const { subject } = opts;
    const deadline = outboundDeadline(totalTimeoutMs, opts.signal);
    const { signal } = deadline;
    const path = join(tempDir, `atelier-fetch-${randomUUID()}`);
    const cleanup = () => rm(path, { force: true });
    // Of the hop in progress: whether its socket opened decides "could not connect".
    const connection: ConnectionState = { connected: true };
    try {
      let hopSubject = subject;
      let current = policy.parseTarget(url, hopSubject);
      for (let hop = 0; ; hop += 1) {
        const target = await policy.vet(current, hopSubject, signal);
        connection.connected = false;
        const { response, client, state } = await request(target, signal, connection);
        try {
          const { statusCode, headers } = response;
          if (REDIRECT_STATUSES.has(statusCode)) {
            if (hop >= maxRedirects) throw new FetchFailed(`${subject} redirected too many times`);
            const location = singleHeader(headers.location);
            if (location === undefined) {
              throw new FetchFailed(`${subject} answered HTTP ${statusCode} without a Location`);
            }
            let next: URL;
            try {
              next = new URL(location, current);
            } catch {
              throw new FetchFailed(`${subject} redirected to a malformed URL`);
            }
            // Security: every hop is judged exactly like the first (scheme, credentials, port, address).
            hopSubject = `A redirect from ${subject}`;
            current = policy.parseTarget(next, hopSubject);
            continue;
          }
          if (statusCode < 200 || statusCode > 299)
            throw new FetchFailed(`${subject} answered HTTP ${statusCode}`);
          const declared = Number(singleHeader(headers['content-length']) ?? Number.NaN);
          if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
          const decoders = contentDecoders(singleHeader(headers['content-encoding']), subject);
          const bytes = await streamToFile(response.body, decoders, path, maxBytes, signal);
          const contentType = singleHeader(headers['content-type']);
          const cacheControl = singleHeader(headers['cache-control']);
          return {
            path,
            bytes,
            cleanup,
            ...(contentType === undefined ? {} : { contentType }),
            ...(cacheControl === undefined ? {} : { cacheControl }),
          };
        } finally {
          connection.connected = state.connected;
          // Destroying an unread body emits 'error'; nobody needs that error, but it must be heard.
          response.body.on('error', () => {});
          response.body.destroy();
          await client.destroy().catch(() => {});
        }
      }
    } catch (err) {
      await cleanup();
      if (err instanceof LocalDiskError) throw err.cause;
      throw deadline.failure(err, { subject, exchange: 'download', connected: connection.connected });
    }
  }

  return { fetchToFile };
}

async function streamToFile(
  body: NodeJS.ReadableStream,
  decoders: Transform[],
  path: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<number> {
  let bytes = 0;
  // Counted after decoding: a 20 kB gzip body can inflate to gigabytes.
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) done(tooLarge(maxBytes));
      else done(null, chunk);
    },
  });
  // Security: create the file before streaming ('wx', 0600, random name) so that a failure can
  // never leave a file created after our cleanup ran, nor follow a planted symlink.
  const handle = await open(path, 'wx', 0o600).catch((err: unknown) => {
    throw new LocalDiskError('could not create the download file', { cause: err });
  });
  try {
    await pipeline([body, ...decoders, counter, handle.createWriteStream()], { signal });
  } finally {
    await handle.close().catch(() => {});
  }
  return bytes;
}

function contentDecoders(header: string | undefined, subject: string): Transform[] {
  if (header === undefined) return [];
  const unsupported = () => new FetchFailed(`${subject} sent an unsupported content encoding`);
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length > 2) throw unsupported();
  // Codings are listed in the order they were applied; undo them in reverse.
  return codings.reverse().map((coding) => {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        return createGunzip();
      case 'deflate':
        return createInflate();
      case 'br':
        return createBrotliDecompress();
      default:
        throw unsupported();
    }
  });
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
