/** Request bodies for the HTTP fuzzer: generate bodies, deep JSON, multipart, and the content type sent with each. */
import fc from 'fast-check';
import type { FuzzContext } from './fuzz-context.js';
import { anyText, ascii, headerValue } from './fuzz-text.js';

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
export function bodyArbitrary(ctx: FuzzContext) {
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
