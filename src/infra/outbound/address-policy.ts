import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { FetchFailed, InvalidInput } from '../../base/domain/errors.js';

/** One answer of the resolver. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A resolver: every address a host name has (node:dns by default; tests script one). */
export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** A caller-named URL that passed the policy, with the only addresses its socket may go to. */
export interface VettedTarget {
  url: URL;
  /** Every address here passed the policy; the socket goes to one of these and nowhere else. */
  addresses: string[];
  port: number;
}

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

/** Throws InvalidInput unless `address` is a public unicast IP (any IPv4 spelling, IPv4-mapped IPv6). */
export function assertPublicAddress(address: string): void {
  if (!isPublicAddress(address)) throw new InvalidInput(`The address ${NOT_PUBLIC}`);
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
  const bare = stripBrackets(address);
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
 * ATELIER_UPLOAD_ALLOWED_HOSTS, for development and tests: an entry `host` exempts that host on
 * every port, `host:port` on that port only. Entries match the URL's host as written (a name by
 * name, an address by address), never what a name resolves to: `localhost` does not exempt
 * `http://127.0.0.1/`, and a caller's own name that resolves to 127.0.0.1 is not exempted by it.
 */
interface AllowedHosts {
  onAnyPort: Set<string>;
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
  const allowed: AllowedHosts = { onAnyPort: new Set(), onPort: new Set() };
  for (const entry of entries) {
    const { host, port } = parseHostEntry(entry);
    if (port === null) allowed.onAnyPort.add(host);
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

function effectivePort(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * What a refusal tells the reader to set: the exact `host:port` entry that would exempt this URL.
 * Only the URL's own host and port are echoed, never an address a name resolved to (that would
 * tell a caller what internal names resolve to).
 */
function exemptionHint(url: URL): string {
  return `; to allow it in development, add "${url.hostname}:${effectivePort(url)}" to ATELIER_UPLOAD_ALLOWED_HOSTS`;
}

/**
 * The policy every caller-named URL must pass before a socket is opened: http(s), no credentials,
 * the default port, and every address the host has must be public, unless `allowedHosts` (from
 * ATELIER_UPLOAD_ALLOWED_HOSTS) exempts it. Refusals are InvalidInput naming `subject` and the
 * entry that would exempt the URL; a host name that does not resolve is FetchFailed.
 */
export function createAddressPolicy(options: { allowedHosts?: string[]; lookup?: Lookup } = {}) {
  const allowed = toAllowedHosts(options.allowedHosts ?? []);
  const lookup = options.lookup ?? systemLookup;

  function isExempt(url: URL): boolean {
    const host = stripBrackets(url.hostname);
    return allowed.onAnyPort.has(host) || allowed.onPort.has(`${host}:${effectivePort(url)}`);
  }

  /** Parses `raw` and checks what can be judged without DNS: scheme, credentials, port. */
  function parseTarget(raw: string | URL, subject: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new InvalidInput(`${subject} is not a valid absolute URL`, subject);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new InvalidInput(`${subject} must use http or https`, subject);
    }
    if (url.username !== '' || url.password !== '') {
      throw new InvalidInput(`${subject} must not contain credentials`, subject);
    }
    // The WHATWG parser empties `port` when it is the scheme's default, so any value here is non-default.
    if (url.port !== '' && !isExempt(url)) {
      throw new InvalidInput(
        `${subject} must use the default port (80 for http, 443 for https)${exemptionHint(url)}`,
        subject,
      );
    }
    return url;
  }

  /** Resolves the host once and judges every answer; the result is all a connector may dial. */
  async function vet(url: URL, subject: string, signal: AbortSignal): Promise<VettedTarget> {
    const host = stripBrackets(url.hostname);
    const port = effectivePort(url);
    const exempt = isExempt(url);
    const refuse = () => new InvalidInput(`${subject} ${NOT_PUBLIC}${exemptionHint(url)}`, subject);
    // Security: a literal IP never reaches the resolver, so a lookup-only guard would wave it through.
    if (isIP(host) !== 0) {
      if (!exempt && !isPublicAddress(host)) throw refuse();
      return { url, addresses: [host], port };
    }
    const unresolved = (cause?: unknown) =>
      new FetchFailed(`${subject} has a host name that could not be resolved`, { cause });
    let answers: ResolvedAddress[];
    try {
      answers = await abortable(lookup(host), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw unresolved(err);
    }
    if (answers.length === 0) throw unresolved();
    // Security: every answer must pass, not just the first; a mixed answer set is an attack, not a fallback.
    if (!exempt && answers.some((answer) => !isPublicAddress(answer.address))) throw refuse();
    // Prefer IPv4 (as Node's `ipv4first` would) since many hosts have no IPv6 route.
    const ordered = [...answers.filter((a) => a.family === 4), ...answers.filter((a) => a.family === 6)];
    return { url, addresses: ordered.map((a) => canonicalIp(a.address) ?? a.address), port };
  }

  return { parseTarget, vet };
}

export type AddressPolicy = ReturnType<typeof createAddressPolicy>;

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
