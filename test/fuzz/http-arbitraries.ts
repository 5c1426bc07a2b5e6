import { METHODS } from 'node:http';
import fc from 'fast-check';

/** Every route of the app, as Fastify paths; the /api/v1 ones are also served under /v1. */
export const V1_ROUTES = [
  'POST /generate',
  'GET /tasks/:id',
  'GET /tasks',
  'GET /tasks/events',
  'POST /tasks/:id/cancel',
  'POST /upload',
  'GET /history',
  'GET /user/status',
  'GET /user/usage',
  'GET /assets',
  'GET /models',
  'GET /user/webhook-secret',
  'POST /user/webhook-secret/rotate',
  'GET /webhooks/deliveries',
  'POST /webhooks/deliveries/:id/redeliver',
];
/** The OpenAI-compatible routes (their errors are in OpenAI's shape). */
export const OPENAI_ROUTES = [
  'GET /v1/models',
  'GET /v1/models/:id',
  'POST /v1/images/generations',
  'POST /v1/images/edits',
];
export const OTHER_ROUTES = [
  'POST /web/api/session',
  'DELETE /web/api/session',
  'GET /web/api/session',
  'DELETE /web/api/sessions',
  'POST /web/api/account/password',
  'POST /web/api/generate',
  'GET /web/api/tasks/pending',
  'POST /web/api/tasks/cleared',
  'GET /web/api/works',
  'DELETE /web/api/works/:id',
  'GET /web/api/assets',
  'GET /web/api/account',
  'GET /web/api/account/usage',
  'PUT /web/api/account/upstream-keys/:id',
  'DELETE /web/api/account/upstream-keys/:id',
  'POST /web/api/account/api-key',
  'GET /api/v1/openapi.json',
  'GET /docs',
  'GET /files/:id',
  'GET /files/uploads/:id',
  'GET /files/results/:id',
  'GET /healthz',
  'GET /',
  'GET /create',
  'GET /static/:id',
  'GET /:id',
  'GET /api/:id',
  'GET /web/api/:id',
];

/** What the fuzzer knows of the app under test: real ids and credentials, so requests get deep. */
export interface FuzzContext {
  baseUrl: string;
  apiKey: string;
  sessionCookie: () => string;
  taskIds: string[];
  fileUrls: string[];
  png: Buffer;
  /** Signs the website's account in again (after a fuzzed sign-out). */
  signIn?: () => Promise<void>;
}

export interface FuzzRequest {
  method: string;
  /** Path and query, already encoded as a client would send them. */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const ascii = (maxLength: number) => fc.string({ unit: 'grapheme-ascii', maxLength });
const anyText = (maxLength: number) =>
  fc.oneof(
    ascii(maxLength),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
  );
/** Header values Node's parser lets through: visible ASCII, space, tab and obs-text (0x80-0xFF). */
const headerValue = fc
  .array(
    fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constant(0x09), fc.integer({ min: 0x80, max: 0xff })),
    { maxLength: 200 },
  )
  .map((codes) => String.fromCharCode(...codes).trim());
const intText = fc.oneof(
  fc.integer({ min: -5, max: 100 }).map(String),
  fc.constantFrom(
    '0',
    '1',
    '50',
    '51',
    '1000000000',
    '99999999999999999999999',
    '1e3',
    '1.5',
    '-0',
    '0x10',
    ' 2',
  ),
);

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
    ...[...OPENAI_ROUTES, ...OTHER_ROUTES].map((route) => route.split(' ')[1] ?? '/'),
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

/** A generate body that gets past the first checks: most fields valid, one or two odd. */
function generateBodyArbitrary(ctx: FuzzContext) {
  const urls = [
    ...ctx.fileUrls,
    'http://10.0.0.1/x.png',
    'ftp://x/y.png',
    'http://user:pw@127.0.0.1/',
    'not a url',
  ];
  return fc.record(
    {
      prompt: fc.oneof(anyText(60), fc.constant(''), fc.constant('x'.repeat(8001)), fc.integer()),
      model: fc.oneof(fc.constantFrom('default', 'local', 'pro', null), ascii(10)),
      mode: fc.oneof(fc.constantFrom('text', 'edit', 'fusion'), ascii(6)),
      aspect: fc.oneof(fc.constantFrom('1:1', '16:9', '4:5', '0:0'), ascii(6)),
      imageSize: fc.oneof(fc.constantFrom('1K', '2K'), ascii(4)),
      count: fc.oneof(fc.integer({ min: -2, max: 6 }), fc.double(), fc.constant('2')),
      imageUrls: fc.oneof(
        fc.array(fc.constantFrom(...urls), { maxLength: 3 }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      callbackUrl: fc.constantFrom('http://10.0.0.1/hook', 'https://127.0.0.1/hook', 'nope', 42),
      source_url: fc.constantFrom(...urls),
      email: ascii(20),
      password: ascii(20),
      key: ascii(30),
    },
    { requiredKeys: ['prompt'] },
  );
}

/** JSON nested `depth` deep, as text (the parser and the fingerprint must not recurse on it). */
const deepJson = fc
  .tuple(fc.integer({ min: 1, max: 20_000 }), fc.boolean())
  .map(([depth, objects]) =>
    objects ? `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`,
  );

/** A multipart body: well-formed, cut short, missing or mismatching its boundary, odd part headers. */
function multipartArbitrary(ctx: FuzzContext) {
  const part = fc.tuple(
    fc.constantFrom('file', 'other', '__proto__', ''),
    fc.option(fc.constantFrom('a.png', '../../x.png', 'x'), { nil: undefined }),
    fc.option(fc.constantFrom('image/png', 'application/json', 'text/plain'), { nil: undefined }),
    fc.oneof(
      fc.constant(ctx.png),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    ),
  );
  return fc
    .tuple(
      fc.array(part, { minLength: 0, maxLength: 3 }),
      fc.boolean(),
      fc.nat(),
      fc.constantFrom('b0undary', 'x', ''),
      fc.constantFrom('; boundary=', '', '; boundary=other'),
    )
    .map(([parts, close, cut, boundary, declared]) => {
      const pieces = parts.map(([name, filename, type, content]) =>
        Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`,
          ),
          content,
          Buffer.from('\r\n'),
        ]),
      );
      const whole = Buffer.concat([...pieces, Buffer.from(close ? `--${boundary}--\r\n` : '')]);
      return {
        body: cut % 3 === 0 ? whole.subarray(0, cut % (whole.length + 1)) : whole,
        contentType: `multipart/form-data${declared === '; boundary=' ? `${declared}${boundary}` : declared}`,
      };
    });
}

/** A body and the content type sent with it (which may not match). */
function bodyArbitrary(ctx: FuzzContext) {
  const contentType = fc.oneof(
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'image/png',
      'application/octet-stream',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'application/json; charset=latin1',
      '',
    ),
    headerValue,
  );
  const json = fc.oneof(
    generateBodyArbitrary(ctx).map((v) => JSON.stringify(v)),
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    deepJson,
    anyText(100),
    fc.constantFrom(
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"prompt":"a"',
      'null',
      '""',
    ),
  );
  return fc.oneof(
    { arbitrary: fc.constant({ body: undefined, contentType: undefined }), weight: 2 },
    {
      arbitrary: fc.record({
        body: json.map((t) => Buffer.from(t)),
        contentType: fc.oneof(fc.constant('application/json'), contentType),
      }),
      weight: 5,
    },
    {
      arbitrary: fc.record({
        body: fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b)),
        contentType,
      }),
      weight: 2,
    },
    {
      arbitrary: fc.record({
        body: fc.constant(ctx.png),
        contentType: fc.constantFrom('image/png', 'image/gif', 'application/octet-stream'),
      }),
      weight: 1,
    },
    { arbitrary: multipartArbitrary(ctx), weight: 3 },
  );
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
