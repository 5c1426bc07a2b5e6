import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import openapiTS from 'openapi-typescript';
import { createTestApp, type TestApp } from './test-server.js';

type Responses = Record<string, { content?: Record<string, { schema?: unknown }> }>;
export type Operation = { responses: Responses; security?: unknown[] };
export type OpenApiDoc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

/** A real JSON answer of an operation, for the generated client's type check. */
export interface CapturedAnswer {
  path: string;
  method: string;
  status: number;
  body: unknown;
}

/** Every operation of the document, as `method path`. */
export const operationsOf = (doc: OpenApiDoc) =>
  Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));

/** The served document of an app. */
export async function openApiDocumentOf(app: FastifyInstance): Promise<OpenApiDoc> {
  return (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as OpenApiDoc;
}

/**
 * Checks real answers against the document: `exercise` sends a request, asserts its status, that
 * the operation documents that status, and that a JSON body matches the documented schema. It
 * records the operation as exercised and the body as captured.
 */
export function contractChecker(app: FastifyInstance, doc: OpenApiDoc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const exercised = new Set<string>();
  const captured: CapturedAnswer[] = [];

  /** The documented schema of an answer, with its component references resolvable by Ajv. */
  function documentedSchema(path: string, method: string, status: number, mediaType: string) {
    const schema = doc.paths[path]?.[method]?.responses[String(status)]?.content?.[mediaType]?.schema;
    assert.ok(schema, `${method} ${path} documents ${status} ${mediaType}`);
    return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
  }

  /**
   * An event stream's events against its documented schema: when the document describes the events
   * (an object schema, not plain text), every event's `data` is one of them, named by its `event:`.
   */
  function checkEvents(answer: string, schema: Record<string, unknown>, body: string) {
    if (schema.type === 'string') return;
    const validate = ajv.compile(schema);
    const events = body.split(/\r?\n\r?\n/).flatMap((block) => {
      const lines = block.split(/\r?\n/);
      // `data: [DONE]` is the end sentinel of OpenAI's chat streams, not an event.
      const data = lines
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .filter((line) => line !== '[DONE]');
      const name = lines
        .find((line) => line.startsWith('event:'))
        ?.slice(6)
        .trim();
      return data.length > 0 ? [{ name, data: JSON.parse(data.join('\n')) as { type?: unknown } }] : [];
    });
    assert.ok(events.length > 0, `${answer}: the stream sent events`);
    for (const { name, data } of events) {
      assert.ok(validate(data), `${answer}, event ${name}: ${ajv.errorsText(validate.errors)}`);
      if (name !== undefined) assert.equal(data.type, name, `${answer}: the event is named by its type`);
    }
  }

  async function exercise(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    request: { url: string; headers?: Record<string, string>; payload?: unknown },
    expected: number,
  ): Promise<LightMyRequestResponse> {
    const response = await app.inject({ method, ...request } as InjectOptions);
    assert.equal(response.statusCode, expected, `${method} ${request.url}: ${response.body.slice(0, 300)}`);
    const lower = method.toLowerCase();
    const responses = doc.paths[path]?.[lower]?.responses;
    assert.ok(responses, `${lower} ${path} is documented`);
    assert.ok(String(expected) in responses, `${lower} ${path} documents ${expected}`);
    exercised.add(`${lower} ${path}`);
    const mediaType = String(response.headers['content-type'] ?? '').split(';')[0] ?? '';
    if (expected === 204) {
      assert.equal(response.body, '', `${method} ${request.url}: 204 has no body`);
      assert.equal(responses['204']?.content, undefined, `${lower} ${path}: 204 documents no body`);
    }
    if (mediaType === 'text/event-stream') {
      checkEvents(
        `${method} ${request.url} ${expected}`,
        documentedSchema(path, lower, expected, mediaType),
        response.body,
      );
      return response;
    }
    if (mediaType !== 'application/json') return response;
    const validate = ajv.compile(documentedSchema(path, lower, expected, mediaType));
    const body = response.json();
    assert.ok(validate(body), `${method} ${request.url} ${expected}: ${ajv.errorsText(validate.errors)}`);
    captured.push({ path, method: lower, status: expected, body });
    return response;
  }

  return { ajv, exercise, exercised, captured };
}

/**
 * Generates a client's types from the document (openapi-typescript) and type-checks every captured
 * answer against the type it declares for that operation and status (tsc --strict).
 */
export async function assertGeneratedTypesAccept(doc: OpenApiDoc, captured: CapturedAnswer[]): Promise<void> {
  const types = await openapiTS(structuredClone(doc) as never);
  const dir = await mkdtemp(join(tmpdir(), 'atelier-openapi-ts-'));
  try {
    await writeFile(join(dir, 'api.ts'), types);
    const checks = captured.map(
      ({ path, method, status, body }, index) =>
        `export const answer${index}: Answer<${JSON.stringify(path)}, ${JSON.stringify(method)}, ${status}> = ${JSON.stringify(body)};`,
    );
    await writeFile(
      join(dir, 'answers.ts'),
      [
        "import type { paths } from './api.js';",
        '/** The JSON body a generated client expects for an answer. */',
        'type Answer<P extends keyof paths, M extends keyof paths[P], S extends number> =',
        "  paths[P][M] extends { responses: { [K in S]: { content: { 'application/json': infer T } } } } ? T : never;",
        ...checks,
        '',
      ].join('\n'),
    );
    const tsc = join(process.cwd(), 'node_modules/.bin/tsc');
    const flags = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--skipLibCheck'];
    // Run in the temporary folder: no project tsconfig applies, only these flags.
    await promisify(execFile)(tsc, [...flags, 'answers.ts'], { cwd: dir }).catch(
      (error: { stdout?: string }) => {
        assert.fail(`the generated types refuse a real answer:\n${error.stdout ?? String(error)}`);
      },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One API's contract suite on a fresh test app: `exerciseAll` drives the operations under `prefix`
 * through the checker (a success and an error each); every operation documented there must then have
 * been exercised, and a client generated from the document must type-check against the answers.
 */
export function describeContract(
  name: string,
  prefix: string,
  exerciseAll: (t: TestApp, exercise: ReturnType<typeof contractChecker>['exercise']) => Promise<void>,
) {
  describe(name, () => {
    let t: TestApp;
    let doc: OpenApiDoc;
    let checker: ReturnType<typeof contractChecker>;

    before(async () => {
      t = await createTestApp();
      doc = await openApiDocumentOf(t.app);
      checker = contractChecker(t.app, doc);
    });
    after(() => t?.close());

    test(`every documented ${prefix} answer matches what the route really returns`, async () => {
      await exerciseAll(t, checker.exercise);
      assert.deepEqual(
        operationsOf(doc).filter(
          (operation) => operation.includes(` ${prefix}/`) && !checker.exercised.has(operation),
        ),
        [],
        `every documented ${prefix} operation is exercised`,
      );
    });

    test('a client generated from the document (openapi-typescript) type-checks against the real answers', async () => {
      assert.ok(checker.captured.length >= 20, 'answers were captured');
      await assertGeneratedTypesAccept(doc, checker.captured);
    });
  });
}
