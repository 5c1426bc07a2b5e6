import { randomUUID } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { open, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { buildConnector, Client } from 'undici';
import { ApiError } from '../http/errors.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface SafeFetchOptions {
  /** 'host' or 'host:port' entries (from ATELIER_UPLOAD_ALLOWED_HOSTS): exempt from the public-address check. */
  allowedHosts?: string[];
  /** Largest accepted body, counted after content decoding. Default 25 MiB. */
  maxBytes?: number;
  /** Time allowed to open each TCP (and TLS) connection. Default 5 s. */
  connectTimeoutMs?: number;
  /** Time allowed for the whole fetch: every lookup, redirect and the full body. Default 30 s. */
  totalTimeoutMs?: number;
  /** Redirects followed before giving up. Default 3. */
  maxRedirects?: number;
  /** Where downloads are written. Default os.tmpdir(). */
  tempDir?: string;
  /** The resolver. Default node:dns lookup with all answers. Called exactly once per hop. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Sent as User-Agent. */
  userAgent?: string;
  /**
   * Observation hook: called with the vetted address and port right before each TCP connection
   * is opened. Tests use it to prove that no connection is attempted to a refused address.
   */
  onConnect?: (address: string, port: number) => void;
  /**
   * TEST-ONLY: where the socket for a vetted address really goes, so tests can stand a loopback
   * server in for a public address. Never set it in production: left unset, the socket goes to
   * the vetted address itself, which is the whole point of this module.
   */
  connectTarget?: (address: string, port: number) => { host: string; port: number };
}

export interface FetchedFile {
  path: string;
  bytes: number;
  cleanup(): Promise<void>;
}

const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;
const DEFAULT_USER_AGENT = 'Atelier/0.1 (reference image fetch)';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NOT_PUBLIC = 'does not point to a public address';

// Belt and braces on top of ipaddr.js's range names: every block the security review asked for
// by name, so a future change in the library's tables cannot silently open one of them.
const BLOCKED_IPV4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '255.255.255.255/32',
].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));

const BLOCKED_IPV6 = [
  '::/96', // unspecified, loopback and the deprecated IPv4-compatible form (::a.b.c.d)
  '::ffff:0:0/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/32',
  '2001:db8::/32',
  '2002::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));

// Every routable public IPv6 address today is in 2000::/3; anything outside it is special.
const GLOBAL_UNICAST_IPV6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** Throws 400 invalid_request unless `address` is a public unicast IP (any IPv4 spelling, IPv4-mapped IPv6). */
export function assertPublicAddress(address: string): void {
  if (!isPublicAddress(address)) throw new ApiError('invalid_request', `The address ${NOT_PUBLIC}`);
}

function isPublicAddress(address: string): boolean {
  const canonical = canonicalIp(address);
  if (canonical === null) return false;
  let ip = ipaddr.parse(canonical);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    // Security: ::ffff:a9fe:a9fe is 169.254.169.254 to the kernel; judge the IPv4 inside.
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
  }
  if (ip.kind() === 'ipv4') {
    const v4 = ip as ipaddr.IPv4;
    return v4.range() === 'unicast' && !BLOCKED_IPV4.some((range) => v4.match(range));
  }
  const v6 = ip as ipaddr.IPv6;
  return (
    v6.range() === 'unicast' &&
    v6.match(GLOBAL_UNICAST_IPV6) &&
    !BLOCKED_IPV6.some((range) => v6.match(range))
  );
}

/**
 * The canonical text of an IP address, or null when `address` is not one. IPv4 goes through the
 * WHATWG host parser so that every spelling it accepts (127.1, 0x7f000001, 2130706433, 0177.0.0.1)
 * is judged as the address a URL with that host would reach.
 */
function canonicalIp(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  try {
    if (isIP(bare) === 6) {
      // Security: serialise IPv6 the WHATWG way before ipaddr.js sees it. ipaddr.js reads the
      // dotted tail of "::8.8.8.8" as IPv4-mapped (::ffff:808:808) although the kernel dials the
      // IPv4-compatible ::808:808; the canonical hex form leaves no room for that disagreement.
      return stripBrackets(new URL(`http://[${bare}]/`).hostname);
    }
    if (bare === '' || /[^0-9a-zA-Z.]/.test(bare)) return null;
    const host = new URL(`http://${bare}/`).hostname;
    return isIP(host) === 4 ? host : null;
  } catch {
    return null;
  }
}

/**
 * An entry `host` exempts that host on the scheme's default port; `host:port` exempts that host on
 * that port only (and is the only way to reach a non-default port at all).
 */
interface AllowedHosts {
  onDefaultPort: Set<string>;
  onPort: Set<string>;
}

/**
 * Parses ATELIER_UPLOAD_ALLOWED_HOSTS (comma-separated `host[:port]`) into canonical entries.
 * Throws an Error naming the first malformed entry, so config validation can report it.
 */
export function parseAllowedHosts(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const { host, port } = parseHostEntry(entry);
      const shown = isIP(host) === 6 ? `[${host}]` : host;
      return port === null ? shown : `${shown}:${port}`;
    });
}

function parseHostEntry(entry: string): { host: string; port: string | null } {
  let hostPart = entry;
  let port: string | null = null;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    hostPart = `[${bracketed[1]}]`;
    port = bracketed[2] ?? null;
  } else if ((entry.match(/:/g) ?? []).length === 1) {
    [hostPart, port] = entry.split(':') as [string, string];
  } else if (isIP(entry) === 6) {
    hostPart = `[${entry}]`;
  }
  if (port !== null && (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535)) {
    throw new Error(`invalid allowed host entry: ${entry}`);
  }
  let host: string;
  try {
    const url = new URL(`http://${hostPart}/`);
    if (url.pathname !== '/' || url.username || url.password || url.port) throw new Error('not a bare host');
    host = stripBrackets(url.hostname);
  } catch {
    throw new Error(`invalid allowed host entry: ${entry}`);
  }
  return { host, port: port === null ? null : String(Number(port)) };
}

function toAllowedHosts(entries: string[]): AllowedHosts {
  const allowed: AllowedHosts = { onDefaultPort: new Set(), onPort: new Set() };
  for (const entry of entries) {
    const { host, port } = parseHostEntry(entry);
    if (port === null) allowed.onDefaultPort.add(host);
    else allowed.onPort.add(`${host}:${port}`);
  }
  return allowed;
}

function stripBrackets(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

async function systemLookup(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

interface VettedTarget {
  url: URL;
  /** Every address here passed the policy; the socket goes to one of these and nowhere else. */
  addresses: string[];
  port: number;
}

/** Creates the one fetcher through which every caller-named URL is downloaded. */
export function createSafeFetcher(options: SafeFetchOptions = {}) {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  const totalTimeoutMs = options.totalTimeoutMs ?? 30_000;
  const maxRedirects = options.maxRedirects ?? 3;
  const tempDir = options.tempDir ?? tmpdir();
  const lookup = options.lookup ?? systemLookup;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const allowed = toAllowedHosts(options.allowedHosts ?? []);
  const baseConnector = buildConnector({ timeout: connectTimeoutMs });

  function parseTarget(raw: string | URL, subject: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ApiError('invalid_request', `${subject} is not a valid absolute URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ApiError('invalid_request', `${subject} must use http or https`);
    }
    if (url.username !== '' || url.password !== '') {
      throw new ApiError('invalid_request', `${subject} must not contain credentials`);
    }
    // The WHATWG parser empties `port` when it is the scheme's default, so any value here is non-default.
    if (url.port !== '' && !allowed.onPort.has(`${stripBrackets(url.hostname)}:${url.port}`)) {
      throw new ApiError('invalid_request', `${subject} must use the default port`);
    }
    return url;
  }

  async function vet(url: URL, subject: string, signal: AbortSignal): Promise<VettedTarget> {
    const host = stripBrackets(url.hostname);
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const exempt =
      allowed.onPort.has(`${host}:${port}`) || (url.port === '' && allowed.onDefaultPort.has(host));
    const refuse = () => new ApiError('invalid_request', `${subject} ${NOT_PUBLIC}`);
    // Security: a literal IP never reaches the resolver, so a lookup-only guard would wave it through.
    if (isIP(host) !== 0) {
      if (!exempt && !isPublicAddress(host)) throw refuse();
      return { url, addresses: [host], port };
    }
    let answers: ResolvedAddress[];
    try {
      answers = await abortable(lookup(host), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw withCause(
        new ApiError('fetch_failed', `${subject} has a host name that could not be resolved`),
        err,
      );
    }
    if (answers.length === 0) {
      throw new ApiError('fetch_failed', `${subject} has a host name that could not be resolved`);
    }
    // Security: every answer must pass, not just the first; a mixed answer set is an attack, not a fallback.
    if (!exempt && answers.some((answer) => !isPublicAddress(answer.address))) throw refuse();
    // Prefer IPv4 (as Node's `ipv4first` would) since many hosts have no IPv6 route.
    const ordered = [...answers.filter((a) => a.family === 4), ...answers.filter((a) => a.family === 6)];
    return { url, addresses: ordered.map((a) => canonicalIp(a.address) ?? a.address), port };
  }

  /**
   * A connector that can only dial the vetted addresses, in order, and records whether a socket
   * was opened (so errors can tell "could not connect" from "failed mid-exchange").
   */
  function pinnedConnector(
    target: VettedTarget,
    signal: AbortSignal,
    state: { connected: boolean },
  ): buildConnector.connector {
    // Security: resolve once and connect to that address, or a second lookup can be rebound to
    // 127.0.0.1. The connector ignores the URL's host name and dials the vetted address itself.
    return (connectOptions, callback) => {
      let index = 0;
      const attempt = () => {
        const address = target.addresses[index] as string;
        options.onConnect?.(address, target.port);
        const destination = options.connectTarget?.(address, target.port) ?? {
          host: address,
          port: target.port,
        };
        baseConnector(
          { ...connectOptions, hostname: destination.host, port: String(destination.port) },
          (err, socket) => {
            if (err !== null) {
              index += 1;
              if (index < target.addresses.length && !signal.aborted) attempt();
              else callback(err, null);
              return;
            }
            state.connected = true;
            callback(null, socket);
          },
        );
      };
      attempt();
    };
  }

  /** Opens one HTTP exchange whose socket can only go to the vetted addresses. */
  async function request(target: VettedTarget, signal: AbortSignal) {
    const state = { connected: false };
    const client = new Client(target.url.origin, {
      connect: pinnedConnector(target, signal, state),
      headersTimeout: totalTimeoutMs,
      bodyTimeout: totalTimeoutMs,
      pipelining: 1,
    });
    try {
      const response = await client.request({
        path: `${target.url.pathname}${target.url.search}`,
        method: 'GET',
        headers: { 'user-agent': userAgent, accept: 'image/*', 'accept-encoding': 'identity' },
        signal,
      });
      return { response, client, state };
    } catch (err) {
      await client.destroy().catch(() => {});
      throw Object.assign(err instanceof Error ? err : new Error(String(err)), {
        connected: state.connected,
      });
    }
  }

  async function fetchToFile(url: string, opts: { signal?: AbortSignal } = {}): Promise<FetchedFile> {
    const timeout = AbortSignal.timeout(totalTimeoutMs);
    const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
    const path = join(tempDir, `atelier-fetch-${randomUUID()}`);
    const cleanup = () => rm(path, { force: true });
    try {
      let subject = 'source_url';
      let current = parseTarget(url, subject);
      for (let hop = 0; ; hop += 1) {
        const target = await vet(current, subject, signal);
        const { response, client, state } = await request(target, signal);
        try {
          const { statusCode, headers } = response;
          if (REDIRECT_STATUSES.has(statusCode)) {
            if (hop >= maxRedirects)
              throw new ApiError('fetch_failed', 'source_url redirected too many times');
            const location = singleHeader(headers.location);
            if (location === undefined) {
              throw new ApiError('fetch_failed', `source_url answered HTTP ${statusCode} without a Location`);
            }
            let next: URL;
            try {
              next = new URL(location, current);
            } catch {
              throw new ApiError('fetch_failed', 'source_url redirected to a malformed URL');
            }
            // Security: every hop is judged exactly like the first (scheme, credentials, port, address).
            subject = 'A redirect from source_url';
            current = parseTarget(next, subject);
            continue;
          }
          if (statusCode < 200 || statusCode > 299) {
            throw new ApiError('fetch_failed', `source_url answered HTTP ${statusCode}`);
          }
          const declared = Number(singleHeader(headers['content-length']) ?? Number.NaN);
          if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
          const bytes = await streamToFile(response.body, headers, path, maxBytes, signal);
          return { path, bytes, cleanup };
        } catch (err) {
          if (err instanceof Error && !(err instanceof ApiError)) {
            Object.assign(err, { connected: state.connected });
          }
          throw err;
        } finally {
          // Destroying an unread body emits 'error'; nobody needs that error, but it must be heard.
          response.body.on('error', () => {});
          response.body.destroy();
          await client.destroy().catch(() => {});
        }
      }
    } catch (err) {
      await cleanup();
      if ((err as { local?: unknown } | null)?.local === true) throw err;
      throw toApiError(err, timeout, opts.signal);
    }
  }

  /**
   * Checks a caller-named URL against the download policy (scheme, no credentials, port, every
   * resolved address) without connecting. Throws ApiError naming `subject`: invalid_request for a
   * refused URL, fetch_failed when the host name does not resolve.
   */
  async function vetUrl(url: string, subject: string, opts: { signal?: AbortSignal } = {}): Promise<void> {
    const timeout = AbortSignal.timeout(totalTimeoutMs);
    const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
    try {
      await vet(parseTarget(url, subject), subject, signal);
    } catch (err) {
      throw postError(err, subject, totalTimeoutMs, timeout, opts.signal, false);
    }
  }

  /**
   * POSTs `body` to a caller-named URL (webhook deliveries): the URL is vetted like a download at
   * call time, the socket goes to the vetted address only, and redirects are never followed (a 3xx
   * is the answer). Resolves with the status code whatever it is; the response body is discarded.
   * Throws ApiError naming `subject`: invalid_request for a refused URL, fetch_failed for DNS,
   * connection, timeout (`timeoutMs` covers lookup, connect and response headers) or reset.
   */
  async function postPinned(
    url: string,
    init: {
      subject: string;
      headers: Record<string, string>;
      body: string;
      timeoutMs: number;
      signal?: AbortSignal;
    },
  ): Promise<{ statusCode: number }> {
    const { subject } = init;
    const timeout = AbortSignal.timeout(init.timeoutMs);
    const signal = init.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
    const state = { connected: false };
    try {
      const target = await vet(parseTarget(url, subject), subject, signal);
      const client = new Client(target.url.origin, {
        connect: pinnedConnector(target, signal, state),
        headersTimeout: init.timeoutMs,
        bodyTimeout: init.timeoutMs,
        pipelining: 1,
      });
      try {
        const response = await client.request({
          path: `${target.url.pathname}${target.url.search}`,
          method: 'POST',
          headers: { 'user-agent': userAgent, ...init.headers },
          body: init.body,
          signal,
        });
        // Only the status matters; an unread body must still be heard when destroyed.
        response.body.on('error', () => {});
        response.body.destroy();
        return { statusCode: response.statusCode };
      } finally {
        await client.destroy().catch(() => {});
      }
    } catch (err) {
      throw postError(err, subject, init.timeoutMs, timeout, init.signal, state.connected);
    }
  }

  return { fetchToFile, vetUrl, postPinned };
}

export type SafeFetcher = ReturnType<typeof createSafeFetcher>;

/** Maps a vet or POST failure to a caller-safe error; like `toApiError`, no underlying error text. */
function postError(
  err: unknown,
  subject: string,
  timeoutMs: number,
  timeout: AbortSignal,
  callerSignal: AbortSignal | undefined,
  connected: boolean,
): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (timeout.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return withCause(
      new ApiError('fetch_failed', `${subject} did not answer within ${timeoutMs / 1000} s`),
      err,
    );
  }
  if (callerSignal?.aborted)
    return withCause(new ApiError('fetch_failed', `The request to ${subject} was cancelled`), err);
  if (!connected)
    return withCause(new ApiError('fetch_failed', `Could not connect to the host of ${subject}`), err);
  return withCause(new ApiError('fetch_failed', `The host of ${subject} closed the connection`), err);
}

async function streamToFile(
  body: NodeJS.ReadableStream,
  headers: Record<string, string | string[] | undefined>,
  path: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<number> {
  const decoders = contentDecoders(singleHeader(headers['content-encoding']));
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
    // Our own disk failing is an internal error, not the source's fault: let it surface as a 500.
    throw Object.assign(err instanceof Error ? err : new Error(String(err)), { local: true });
  });
  try {
    await pipeline([body, ...decoders, counter, handle.createWriteStream()], { signal });
  } finally {
    await handle.close().catch(() => {});
  }
  return bytes;
}

function contentDecoders(header: string | undefined): Transform[] {
  if (header === undefined) return [];
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length > 2)
    throw new ApiError('fetch_failed', 'source_url sent an unsupported content encoding');
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
        throw new ApiError('fetch_failed', 'source_url sent an unsupported content encoding');
    }
  });
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    'payload_too_large',
    `The image is larger than ${Math.floor(maxBytes / (1024 * 1024))} MB`,
  );
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function withCause(error: ApiError, cause: unknown): ApiError {
  return Object.assign(error, { cause });
}

/**
 * Maps any failure to the caller-safe error. Messages never carry the underlying error text:
 * a refused port, a reset and a connect timeout read the same, so the fetcher is no port scanner.
 */
function toApiError(err: unknown, timeout: AbortSignal, callerSignal: AbortSignal | undefined): ApiError {
  if (err instanceof ApiError) return err;
  if (timeout.aborted) return withCause(new ApiError('fetch_failed', 'Fetching source_url timed out'), err);
  if (callerSignal?.aborted)
    return withCause(new ApiError('fetch_failed', 'Fetching source_url was cancelled'), err);
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return withCause(new ApiError('fetch_failed', 'Fetching source_url timed out'), err);
  }
  if ((err as { connected?: unknown } | null)?.connected === false) {
    return withCause(new ApiError('fetch_failed', 'Could not connect to the host of source_url'), err);
  }
  if (code === 'UND_ERR_SOCKET') {
    return withCause(
      new ApiError('fetch_failed', 'The host of source_url closed the connection mid-download'),
      err,
    );
  }
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return withCause(new ApiError('fetch_failed', 'source_url sent a malformed compressed body'), err);
  }
  return withCause(new ApiError('fetch_failed', 'The download of source_url failed'), err);
}
