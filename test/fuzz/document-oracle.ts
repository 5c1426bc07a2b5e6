import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import type { OpenAPIV3_1 } from 'openapi-types';

// Issue 49: fuzzing driven by the OpenAPI document. For an operation, requests whose parameters and
// body the document allows (fast-check, a fixed seed) are sent to the running app, and two oracles
// judge each answer:
// - every answered status is one the operation documents;
// - a request the schema allows is never refused 400 for a reason the schema could state: a refusal
//   of the request's content (Atelier's invalid_request, OpenAI's invalid_request_error, Google's
//   INVALID_ARGUMENT, OAuth's invalid_request or invalid_client_metadata) must be one of the rules
//   between fields or on the account's state that no JSON Schema of the request can say, listed
//   below by their message (each stated in its field's description).

export type Schema = OpenAPIV3_1.SchemaObject & { $ref?: string; items?: Schema; const?: unknown };
export type Operation = OpenAPIV3_1.OperationObject;

/** Refusals of schema-valid requests that no JSON Schema of the request can state. */
export const STATE_RULES = [
  /^Name at least one id in works or assets$/, // works and assets together (ZIP)
  /^works and assets name more than \d+ ids in all$/,
  /^from must not be after to$/, // usage range, two fields
  /^The range covers at most \d+ days$/,
  /^format needs w/, // /files: format only with w
  /^at most \d+ ids per request$/, // ids: a count of a comma-separated list
  // The catalog in force (GET /api/v1/models lists each model's aspects, modes, caps).
  /^Unknown model "/,
  /is not supported by model /,
  /^model \S+ does not support /,
  /^quote_id: not a quote of this deployment/, // quotes this deployment gave
  // Mode and references: the document's if/then rules say the rest; the fusion's cap is the model's,
  // and with parentId the parent's own URL may be repeated in imageUrls (its URL is the account's state).
  /^mode fusion needs between 2 and \d+ URLs in imageUrls$/,
  /^mode edit needs exactly one URL in imageUrls$/,
  /^maskUrl is only taken by mode edit \(this is mode fusion\)$/,
  /names no work of this account/, // parentId: the account's works
  /^filters\.collection names no collection of yours$/, // the account's collections
  // The deployment's address policy for URLs it fetches or posts to (ATELIER_UPLOAD_ALLOWED_HOSTS),
  // and the name service.
  /to ATELIER_UPLOAD_ALLOWED_HOSTS$/,
  /has a host name that could not be resolved$/,
  /^an account with email \S+ exists$/, // the accounts that exist
  /^confirm must be the account's e-mail$/, // an erase names the account it erases
  /^cursor is not one this (log|API) gave$/, // an opaque cursor the answer gave
];

/** A value the schema allows (a practical subset of JSON Schema: what the document uses). */
export function arbitraryOf(
  schema: Schema | undefined,
  resolve: (ref: string) => Schema,
  seed: number,
  depth = 0,
): fc.Arbitrary<unknown> {
  const inner = (s: Schema | undefined) => arbitraryOf(s, resolve, seed, depth + 1);
  if (!schema || depth > 12) return fc.constant('x');
  if (schema.$ref) return inner(resolve(schema.$ref));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union && !schema.properties) return fc.oneof(...union.map(inner));
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
    const minLength = schema.minItems ?? 0;
    const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 3, 3));
    return fc.array(inner(schema.items), { minLength, maxLength });
  }
  if (type === 'object' || schema.properties) return objectOf(schema, inner);
  return stringOf(schema, seed);
}

/**
 * An object of the schema. A `oneOf` of required sets beside the properties ("exactly one of a, b
 * and c") is met: each object takes one set's fields and leaves out the others'.
 */
function objectOf(schema: Schema, inner: (s: Schema | undefined) => fc.Arbitrary<unknown>) {
  const properties = Object.entries(schema.properties ?? {});
  const sets = ((schema.oneOf ?? []) as Schema[]).map((branch) => branch.required ?? []);
  const exclusive = new Set(sets.flat());
  const recordOf = (chosen: string[]) => {
    const required = new Set([...(schema.required ?? []), ...chosen]);
    const kept = properties.filter(([name]) => chosen.includes(name) || !exclusive.has(name));
    return fc.record(Object.fromEntries(kept.map(([name, s]) => [name, inner(s as Schema)])), {
      requiredKeys: kept.map(([name]) => name).filter((name) => required.has(name)),
    });
  };
  return sets.length > 0 ? fc.oneof(...sets.map(recordOf)) : recordOf([]);
}

const URIS = ['https://example.com/a.png', 'http://203.0.113.9/b', 'http://127.0.0.1:7777/cb'];

function stringOf(schema: Schema, seed: number): fc.Arbitrary<string> {
  const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
  const matching = (values: string[]) => values.filter((value) => !pattern || pattern.test(value));
  if (schema.format === 'date')
    return fc
      .date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
  if (schema.format === 'uri') return fc.constantFrom(...matching(URIS));
  if (schema.format === 'email') return fc.constantFrom('fuzz@example.com', 'a@b');
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 12, 12));
  const text = fc.string({
    unit: fc.constantFrom(...'abcxyz019_-'),
    minLength: Math.max(minLength, 1),
    maxLength,
  });
  if (!pattern) return minLength === 0 ? fc.oneof(text, fc.constant('')) : text;
  // Strings of the pattern among a sample (a filter could wait forever for a pattern it never meets),
  // of an alphabet with the separators patterns ask for.
  const unit = fc.constantFrom(...'abcxyz019_-/.:');
  const sample = fc.string({ unit, minLength: Math.max(minLength, 1), maxLength });
  // A pattern that starts with a literal (`^tsk_`) has it in front of every sample.
  const prefix = /^\^([\w-]+)/.exec(schema.pattern ?? '')?.[1] ?? '';
  const found = matching(fc.sample(sample, { numRuns: 500, seed }).map((value) => prefix + value));
  return found.length > 0 ? fc.constantFrom(...found) : fc.constant('x');
}

/** The media types whose bodies the generator writes, in the order it prefers them. */
const WRITABLE = ['application/json', 'application/x-www-form-urlencoded'] as const;

/** A generated request: its URL, and its body as sent with its Content-Type (undefined when none). */
export interface GeneratedRequest {
  url: string;
  body?: { contentType: string; text: string };
  /** Whether the body meets its whole schema, cross-field rules (`if`/`then`) included. */
  schemaValid: boolean;
}

/** A body's validator from the document: JSON Schema 2020-12 (OpenAPI 3.1's), `$ref`s into its components. */
export type BodyValidator = (schema: Schema) => (body: unknown) => boolean;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export function bodyValidatorOf(doc: OpenAPIV3_1.Document): BodyValidator {
  const ajv = new Ajv2020({ strict: false, logger: false });
  addFormats(ajv);
  return (schema) => {
    const validate = ajv.compile({ ...schema, components: doc.components });
    return (body) => validate(body) === true;
  };
}

/**
 * Values of `arbitrary` that `valid` accepts where the generator finds one within `tries` draws (it
 * knows the schemas' keywords but not their `if`/`then` rules); past that, the next value whatever it is.
 */
function validFirst<T>(
  arbitrary: fc.Arbitrary<T>,
  valid: (value: T) => boolean,
  tries = 200,
): fc.Arbitrary<T> {
  let misses = 0;
  return arbitrary.filter((value) => {
    if (valid(value) || misses >= tries) {
      misses = 0;
      return true;
    }
    misses++;
    return false;
  });
}

/**
 * The requests for one operation: path, query and body from their schemas. `complete` is false
 * when the operation takes a body the generator cannot write (multipart, an image): then a 400
 * says nothing of the schema.
 */
export function requestsOf(
  path: string,
  operation: Operation,
  resolve: (ref: string) => Schema,
  seed: number,
  validatorOf: BodyValidator,
): { arbitrary: fc.Arbitrary<GeneratedRequest>; complete: boolean } {
  const parameters = (operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
  const values = Object.fromEntries(
    parameters
      .filter((p) => p.in !== 'header')
      .map((p) => {
        // A long-poll waits for nothing here: a wait of 0 (in its range) keeps the run short.
        const value = p.name === 'wait' ? fc.constant(0) : arbitraryOf(p.schema as Schema, resolve, seed);
        return [
          `${p.in}:${p.name}`,
          p.required || p.in === 'path' ? value : fc.option(value, { nil: undefined }),
        ];
      }),
  );
  const content = (operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content ?? {};
  const contentType = WRITABLE.find((type) => content[type]);
  const schema = contentType ? (content[contentType]?.schema as Schema) : undefined;
  const valid = schema ? validatorOf(schema) : () => true;
  const arbitrary = fc
    .record({
      given: fc.record(values as Record<string, fc.Arbitrary<unknown>>),
      body: schema ? validFirst(arbitraryOf(schema, resolve, seed), valid) : fc.constant(undefined),
    })
    .map(({ given, body }) => {
      let url = path;
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(given)) {
        if (value === undefined) continue;
        const [where, name = ''] = key.split(':');
        if (where === 'path') url = url.replace(`{${name}}`, encodeURIComponent(String(value) || 'x'));
        else if (where === 'query') query.set(name, String(value));
      }
      const request: GeneratedRequest = {
        url: query.size > 0 ? `${url}?${query}` : url,
        schemaValid: valid(body),
      };
      if (contentType === 'application/json') request.body = { contentType, text: JSON.stringify(body) };
      else if (contentType) {
        const fields = Object.entries(body as Record<string, unknown>).map(([k, v]) => [k, String(v)]);
        request.body = { contentType, text: new URLSearchParams(fields).toString() };
      }
      return request;
    });
  return { arbitrary, complete: Object.keys(content).length === 0 || contentType !== undefined };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/**
 * The message of a refusal of the request's content, in any of the document's error shapes
 * (Atelier's, OpenAI's, Google's, OAuth's); undefined for any other answer.
 */
export function contentRefusalOf(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const { error } = body;
  if (typeof error === 'string')
    return ['invalid_request', 'invalid_client_metadata'].includes(error)
      ? String(body.error_description ?? error)
      : undefined;
  if (!isObject(error)) return undefined;
  const refused =
    error.type === 'invalid_request' ||
    error.type === 'invalid_request_error' ||
    error.status === 'INVALID_ARGUMENT';
  if (!refused) return undefined;
  const param = typeof error.param === 'string' ? ` (param ${error.param})` : '';
  return `${String(error.message)}${param}`;
}

/** An answer as the oracles read it. */
export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** What the oracles find in one answer to a schema-valid request: a sentence and an example, or none. */
export function judge(
  operation: Operation,
  complete: boolean,
  request: GeneratedRequest,
  answer: Answer,
): Array<[string, string]> {
  const findings: Array<[string, string]> = [];
  const example = `${request.url}${request.body ? ` ${request.body.text.slice(0, 200)}` : ''}`;
  if (!(String(answer.status) in (operation.responses ?? {})))
    findings.push([
      `answered ${answer.status} (not documented)`,
      `${example} → ${answer.text.slice(0, 160)}`,
    ]);
  if (answer.status !== 400 || !complete || !request.schemaValid || !/json/.test(answer.contentType))
    return findings;
  const message = contentRefusalOf(JSON.parse(answer.text));
  if (message !== undefined && !STATE_RULES.some((rule) => rule.test(message)))
    findings.push([`refused a schema-valid request: ${message}`, example]);
  return findings;
}

/** How to fuzz a document: where requests go, and how many for each operation. */
export interface FuzzOptions {
  doc: OpenAPIV3_1.Document;
  send: (method: string, request: GeneratedRequest, operation: Operation) => Promise<Answer>;
  seed: number;
  runs: number;
  /** Operations left out (streams that never end, signing out the session in use). */
  skip?: (path: string, method: string, operation: Operation) => boolean;
}

/** Fuzzes every operation of the document; the oracles' findings (`METHOD path sentence` → an example). */
export async function fuzzDocument(
  options: FuzzOptions,
): Promise<{ findings: Map<string, string>; sent: number }> {
  const { doc, seed } = options;
  const resolve = (ref: string) => doc.components?.schemas?.[ref.split('/').pop() ?? ''] as Schema;
  const validatorOf = bodyValidatorOf(doc);
  const findings = new Map<string, string>();
  let sent = 0;
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(methods as Record<string, Operation>)) {
      if (options.skip?.(path, method, operation)) continue;
      const { arbitrary, complete } = requestsOf(path, operation, resolve, seed, validatorOf);
      await fc.assert(
        fc.asyncProperty(arbitrary, async (request) => {
          const answer = await options.send(method.toUpperCase(), request, operation);
          sent++;
          for (const [sentence, example] of judge(operation, complete, request, answer))
            findings.set(`${method.toUpperCase()} ${path} ${sentence}`, example);
        }),
        { numRuns: options.runs, seed },
      );
    }
  }
  return { findings, sent };
}
