import { METHODS } from 'node:http';
import fc from 'fast-check';
import {
  type FuzzContext,
  type FuzzRequest,
  GEMINI_ROUTES,
  OAUTH_ROUTES,
  OPENAI_ROUTES,
  OTHER_ROUTES,
  V1_ROUTES,
} from './fuzz-context.js';
import { anyText, ascii, headerValue, intText } from './fuzz-text.js';
import { bodyArbitrary } from './http-body-arbitraries.js';

/** A path parameter: a real id, a random one, a long one, traversal, bad escapes, odd Unicode. */
function paramArbitrary(ctx: FuzzContext) {
  const real = [...ctx.taskIds, ...ctx.fileUrls.map((url) => url.split('/').pop() ?? 'x')];
  return fc.oneof(
    { arbitrary: fc.constantFrom(...real), weight: 3 },
    { arbitrary: anyText(40).map(encodeURIComponent), weight: 3 },
    { arbitrary: fc.integer({ min: 101, max: 9000 }).map((n) => 'a'.repeat(n)), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        '..',
        '%2e%2e',
        '..%2f..%2fatelier.db',
        '%00',
        '%zz',
        '%',
        '%c0%ae',
        '%E0%A4%A',
        '%F0%9F%98',
        '',
      ),
      weight: 2,
    },
  );
}

/** Percent-encodes every byte a request target cannot carry raw (controls, space, non-ASCII). */
function percentEncodeUnsafe(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out += byte > 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

function queryArbitrary() {
  const key = fc.oneof(
    fc.constantFrom(
      'page',
      'limit',
      'ids',
      'kind',
      'since',
      'wait',
      'id',
      'from',
      'to',
      'page[]',
      '__proto__',
      'constructor',
    ),
    ascii(12),
  );
  const value = fc.oneof(intText, anyText(30), fc.constantFrom('tsk_a,tsk_b', ',,,', 'upload', 'result'));
  return fc
    .array(fc.tuple(key, value, fc.boolean()), { maxLength: 5 })
    .map((pairs) =>
      pairs
        // ?wait=1…60 is a long-poll by design: the fuzzer does not sit through it.
        .filter(([k, v]) => !(k === 'wait' && /^\s*0*[1-9]\d?\s*$/.test(v)))
        .map(([k, v, encode]) => (encode ? `${encodeURIComponent(k)}=${encodeURIComponent(v)}` : `${k}=${v}`))
        .join('&'),
    )
    .map((query) => (query ? `?${percentEncodeUnsafe(query)}` : ''));
}

function pathArbitrary(ctx: FuzzContext) {
  const templates = [
    ...V1_ROUTES.flatMap((route) => {
      const path = route.split(' ')[1] ?? '/';
      return [`/api/v1${path}`, `/v1${path}`];
    }),
    ...[...OPENAI_ROUTES, ...GEMINI_ROUTES, ...OAUTH_ROUTES, ...OTHER_ROUTES].map(
      (route) => route.split(' ')[1] ?? '/',
    ),
  ];
  return fc
    .tuple(
      fc.constantFrom(...templates),
      fc.array(paramArbitrary(ctx), { minLength: 2, maxLength: 2 }),
      queryArbitrary(),
    )
    .map(([template, params, query]) => {
      let i = 0;
      return template.replace(/:id\b/g, () => params[i++] ?? 'x') + query;
    });
}

function headersArbitrary(ctx: FuzzContext) {
  return fc.record(
    {
      authorization: fc.oneof(
        { arbitrary: fc.constant(`Bearer ${ctx.apiKey}`), weight: 6 },
        {
          arbitrary: fc.constantFrom(
            'Bearer',
            'Bearer atl_nope',
            'Basic dXNlcjpwdw==',
            `bearer   ${ctx.apiKey}  `,
          ),
          weight: 1,
        },
        { arbitrary: headerValue, weight: 1 },
      ),
      cookie: fc.oneof(fc.constant('session'), headerValue),
      origin: fc.oneof(
        fc.constant(ctx.baseUrl),
        fc.constantFrom('https://evil.example', 'null'),
        headerValue,
      ),
      'idempotency-key': fc.oneof(ascii(20), headerValue, fc.constant('k'.repeat(300))),
      accept: fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html'),
      'if-none-match': headerValue,
      'last-event-id': headerValue,
      range: fc.constantFrom('bytes=0-10', 'bytes=-5', 'bytes=999999-', 'bytes=x'),
      'x-forwarded-for': headerValue,
    },
    { requiredKeys: [] },
  );
}

/** One random request against the app. */
export function requestArbitrary(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const method = fc.oneof(
    { arbitrary: fc.constantFrom('GET', 'POST'), weight: 8 },
    { arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'), weight: 3 },
    { arbitrary: fc.constantFrom(...METHODS.filter((m) => m !== 'CONNECT')), weight: 1 },
  );
  return fc
    .tuple(method, pathArbitrary(ctx), headersArbitrary(ctx), bodyArbitrary(ctx))
    .map(([verb, url, headers, { body, contentType }]) => {
      const all: Record<string, string> = { ...headers };
      if (all.cookie === 'session') all.cookie = ctx.sessionCookie();
      if (contentType !== undefined) all['content-type'] = contentType;
      return { method: verb, url, headers: all, ...(body === undefined ? {} : { body }) };
    });
}

/** Raw bytes for Node's HTTP parser: request lines and headers no well-behaved client would send. */
export function rawRequestArbitrary(ctx: FuzzContext): fc.Arbitrary<Buffer> {
  const token = fc.oneof(
    fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'CONNECT', 'PRI', 'QUERY'),
    ascii(8),
  );
  const target = fc.oneof(
    pathArbitrary(ctx),
    anyText(60),
    fc.constantFrom('*', 'http://x/healthz', '/a b', '//', '/\u0000'),
  );
  const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1', 'http/1.1', '');
  const header = fc.oneof(
    fc.tuple(
      fc.constantFrom(
        'Content-Length',
        'Transfer-Encoding',
        'Authorization',
        'Host',
        'Expect',
        'Content-Type',
      ),
      anyText(30),
    ),
    fc.tuple(anyText(12), anyText(40)),
    fc.constant<[string, string]>(['Authorization', `Bearer ${ctx.apiKey}`]),
  );
  const body = fc.oneof(
    fc.constant(''),
    anyText(80),
    fc.constantFrom('0\r\n\r\n', '5\r\nhello\r\n0\r\n\r\n', 'zz\r\n'),
  );
  return fc
    .tuple(token, target, version, fc.array(header, { maxLength: 6 }), body, fc.boolean())
    .map(([m, t, v, headers, b, close]) => {
      const lines = [`${m} ${t} ${v}`, 'Host: fuzz', ...headers.map(([n, val]) => `${n}: ${val}`)];
      if (close) lines.push('Connection: close');
      return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${b}`, 'latin1');
    });
}
