import { isIP } from 'node:net';

/** Which hops' `X-Forwarded-*` to believe: none, the nearest `n`, or those from these addresses. */
export type TrustProxy = false | number | string[];

/** proxy-addr's names for ranges (Fastify hands the list to it). */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const ACCEPTED =
  "must be false, the number of trusted proxy hops in front of Atelier (e.g. 1), or the proxies' addresses or CIDR ranges, comma-separated (e.g. 10.0.0.0/8,192.168.1.5)";

export const TRUST_PROXY_TRUE_WARNING =
  'ATELIER_TRUST_PROXY=true is read as 1: only the nearest proxy is trusted, so the client address is the last X-Forwarded-For entry (the one that proxy wrote). Set the number of proxies in front of Atelier, or their addresses, to say so explicitly.';

/** One list entry: an address, a CIDR range (not /0, which is every address), or a range name. */
function entryProblem(entry: string): string | undefined {
  if (RANGE_NAMES.has(entry) || isIP(entry) !== 0) return undefined;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  const bits = Number(prefix);
  if (
    family === 0 ||
    rest.length > 0 ||
    !/^\d{1,3}$/.test(prefix ?? '') ||
    bits > (family === 4 ? 32 : 128)
  ) {
    return `"${entry}" is not an address or CIDR range`;
  }
  if (bits === 0)
    return `"${entry}" trusts every address, so any client could write its own; name the proxies' ranges`;
  return undefined;
}

/**
 * Parses ATELIER_TRUST_PROXY. `true` used to trust every hop (the leftmost, client-written
 * X-Forwarded-For entry became the client address); it is kept as an alias of one hop, with a
 * warning, so existing deployments keep starting and become safe.
 */
export function parseTrustProxy(raw: string): { value: TrustProxy; warning?: string } | { problem: string } {
  const text = raw.trim().toLowerCase();
  if (text === '' || text === 'false' || text === '0') return { value: false };
  if (text === 'true') return { value: 1, warning: TRUST_PROXY_TRUE_WARNING };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops <= 32 ? { value: hops } : { problem: `${ACCEPTED}; at most 32 hops (got ${raw})` };
  }
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const problems = entries.map(entryProblem).filter((problem) => problem !== undefined);
  if (entries.length === 0 || problems.length > 0) {
    return { problem: `${ACCEPTED}${problems.length > 0 ? `: ${problems.join('; ')}` : ''}` };
  }
  return { value: entries };
}

/**
 * The setting as Fastify's `trustProxy` option takes it. Fastify trusts a number of hops at run
 * time but its types omit numbers, so hops are given as the same rule written out: of the
 * addresses from the socket's (hop 0) leftwards, trust the nearest `hops`.
 */
export function fastifyTrustProxy(
  value: TrustProxy,
): false | string[] | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}
