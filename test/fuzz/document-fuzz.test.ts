import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { OpenAPIV3_1 } from 'openapi-types';
import { bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie, TEST_ORIGIN } from '../support/website-session.js';

// Issue 49: fuzzing driven by the OpenAPI document, so an operation added later is covered without
// being named. For every operation, requests whose parameters the document allows (fast-check, a
// fixed seed) are sent to the running app with the credentials its security names:
// - every answered status is one the operation documents;
// - a request the schema allows is never refused 400 invalid_request for a reason the schema could
//   state: the refusals allowed are the documented rules between fields or on the account's state,
//   listed below by their message.
// Bodies are generated for the status check; the 400 check applies to operations without a body
// (whose every input is a parameter the generator covers in full).
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS_PER_OPERATION = Number(process.env.DOC_FUZZ_RUNS ?? 3);

/** Refusals of schema-valid requests that no JSON Schema of the request can state (each documented in its description). */
const STATE_RULES = [
  /^Name at least one id in works or assets$/, // works and assets together (ZIP)
  /^works and assets name more than \d+ ids in all$/,
  /^from must not be after to$/, // usage range, two fields
  /^The range covers at most \d+ days$/,
  /^format needs w/, // /files: format only with w
  /^at most \d+ ids per request$/, // ids: a count of a comma-separated list
];

type Schema = OpenAPIV3_1.SchemaObject & { $ref?: string; items?: Schema; const?: unknown };
type Operation = OpenAPIV3_1.OperationObject;

/** A value the schema allows (a practical subset of JSON Schema: what the document uses). */
function arbitraryOf(
  schema: Schema | undefined,
  resolve: (ref: string) => Schema,
  depth = 0,
): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.constant('x');
  if (schema.$ref) return arbitraryOf(resolve(schema.$ref), resolve, depth + 1);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union) return fc.oneof(...union.map((s) => arbitraryOf(s, resolve, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'integer' || type === 'number') {
    const exclusive = (value: unknown) => (typeof value === 'number' ? value : undefined);
    const low = schema.minimum ?? (exclusive(schema.exclusiveMinimum) ?? -1) + 1;
    const min = Math.ceil(Math.max(low, -1000));
    const high = schema.maximum ?? (exclusive(schema.exclusiveMaximum) ?? min + 1001) - 1;
    return fc.integer({ min, max: Math.floor(Math.min(high, min + 1000)) });
  }
  if (type === 'boolean') return fc.boolean();
  if (type === 'null') return fc.constant(null);
  if (type === 'array') {
    const maxLength = Math.min(schema.maxItems ?? 3, 3);
    return fc.array(arbitraryOf(schema.items, resolve, depth + 1), {
      minLength: schema.minItems ?? 0,
      maxLength,
    });
  }
  if (type === 'object' || schema.properties) {
    const properties = Object.entries(schema.properties ?? {});
    const required = new Set(schema.required ?? []);
    return fc.record(
      Object.fromEntries(properties.map(([name, s]) => [name, arbitraryOf(s as Schema, resolve, depth + 1)])),
      { requiredKeys: properties.map(([name]) => name).filter((name) => required.has(name)) },
    );
  }
  return stringOf(schema);
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'date')
    return fc
      .date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
  if (schema.format === 'uri') return fc.constantFrom('https://example.com/a.png', 'http://203.0.113.9/b');
  if (schema.format === 'email') return fc.constantFrom('fuzz@example.com', 'a@b');
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 12, 12));
  const text = fc.string({
    unit: fc.constantFrom(...'abcxyz019_-'),
    minLength: Math.max(minLength, 1),
    maxLength,
  });
  if (!schema.pattern) return minLength === 0 ? fc.oneof(text, fc.constant('')) : text;
  const pattern = new RegExp(schema.pattern, 'u');
  // Strings of the pattern among a sample (a filter could wait forever for a pattern it never meets).
  const matching = fc.sample(text, { numRuns: 300, seed: SEED }).filter((value) => pattern.test(value));
  return matching.length > 0 ? fc.constantFrom(...matching) : fc.constant('x');
}

/** The request for one operation: path, query and body from their schemas. */
function requestOf(path: string, operation: Operation, resolve: (ref: string) => Schema) {
  const parameters = (operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
  const values = Object.fromEntries(
    parameters
      .filter((p) => p.in !== 'header')
      .map((p) => {
        // A long-poll waits for nothing here: a wait of 0 (in its range) keeps the run short.
        const value = p.name === 'wait' ? fc.constant(0) : arbitraryOf(p.schema as Schema, resolve);
        return [
          `${p.in}:${p.name}`,
          p.required || p.in === 'path' ? value : fc.option(value, { nil: undefined }),
        ];
      }),
  );
  const content = (operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content;
  const json = content?.['application/json']?.schema as Schema | undefined;
  return fc
    .record({
      values: fc.record(values as Record<string, fc.Arbitrary<unknown>>),
      body: json ? arbitraryOf(json, resolve) : fc.constant(undefined),
    })
    .map(({ values: given, body }) => {
      let url = path;
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(given)) {
        if (value === undefined) continue;
        const [where, name = ''] = key.split(':');
        if (where === 'path') url = url.replace(`{${name}}`, encodeURIComponent(String(value) || 'x'));
        else if (where === 'query') query.set(name, String(value));
      }
      return { url: query.size > 0 ? `${url}?${query}` : url, body };
    });
}

describe('fuzzing the OpenAPI document against the running app', { timeout: 300_000 }, () => {
  let t: TestApp;
  let doc: OpenAPIV3_1.Document;
  let apiKey: string;
  let cookie: string;

  before(async () => {
    // The engine stays off: the OpenAI- and Gemini-compatible routes end at a short wait ceiling.
    t = await createTestApp({ startEngine: false, env: { ATELIER_OPENAI_WAIT_MS: '300' } });
    const account = await t.createAccount(undefined, { password: 'document fuzz' });
    apiKey = account.apiKey;
    cookie = await signedInCookie(t.app, { email: account.email, password: 'document fuzz' });
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  });
  after(() => t.close());

  test('schema-valid requests: every status documented, no 400 the schema could have prevented', async () => {
    const resolve = (ref: string) => doc.components?.schemas?.[ref.split('/').pop() ?? ''] as Schema;
    const findings = new Map<string, string>();
    let sent = 0;
    for (const [path, methods] of Object.entries(doc.paths ?? {})) {
      for (const [method, operation] of Object.entries(methods as Record<string, Operation>)) {
        const content = Object.keys(
          (operation.responses?.['200'] as OpenAPIV3_1.ResponseObject)?.content ?? {},
        );
        // Streams never end (event streams, streamed generation); signing out ends the session used here.
        if (
          content.includes('text/event-stream') ||
          path.includes(':stream') ||
          path.endsWith('/session') ||
          path.endsWith('/sessions')
        )
          continue;
        const website = ((operation.security ?? doc.security ?? []) as object[]).every(
          (s) => 'websiteSession' in s,
        );
        const headers: Record<string, string> = website
          ? { cookie, origin: TEST_ORIGIN }
          : { ...bearer(apiKey), origin: TEST_ORIGIN };
        const hasBody = operation.requestBody !== undefined;
        await fc.assert(
          fc.asyncProperty(requestOf(path, operation, resolve), async ({ url, body }) => {
            const answer = await t.app.inject({
              method: method.toUpperCase() as 'GET',
              url,
              headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
              ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
            });
            sent++;
            const name = `${method.toUpperCase()} ${path}`;
            if (!(String(answer.statusCode) in (operation.responses ?? {})))
              findings.set(
                `${name} answered ${answer.statusCode} (not documented)`,
                `${url} → ${answer.body.slice(0, 160)}`,
              );
            const error = /json/.test(String(answer.headers['content-type']))
              ? (answer.json() as { error?: { type?: string; message?: string } }).error
              : undefined;
            if (!hasBody && answer.statusCode === 400 && error?.type === 'invalid_request') {
              const message = error.message ?? '';
              if (!STATE_RULES.some((rule) => rule.test(message)))
                findings.set(`${name} refused a schema-valid request: ${message}`, url);
            }
          }),
          { numRuns: RUNS_PER_OPERATION, seed: SEED },
        );
      }
    }
    assert.ok(sent > 300, `${sent} requests`);
    assert.deepEqual(
      [...findings].map(([kind, example]) => `${kind}\n    e.g. ${example}`),
      [],
    );
  });
});
