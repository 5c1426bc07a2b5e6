import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { accountStatusSchema } from '../../src/base/contract/accounts.js';
import { assetSchema, assetsPageSchema } from '../../src/base/contract/assets.js';
import { modelsSchema } from '../../src/base/contract/catalog.js';
import { errorBodySchema } from '../../src/base/contract/errors.js';
import {
  generateResponseSchema,
  historyItemSchema,
  historyPageSchema,
} from '../../src/base/contract/generations.js';
import { taskBatchSchema, taskRecordSchema } from '../../src/base/contract/tasks.js';
import { uploadResultSchema } from '../../src/base/contract/uploads.js';
import { webhookDeliveriesPageSchema, webhookSecretSchema } from '../../src/base/contract/webhooks.js';
import * as clientSchemas from '../../src/edges/client/api-schemas.js';
import { createAtelierClient } from '../../src/edges/client/atelier-client.js';
import { bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { startTestServer } from '../support/test-server.js';

/** The schemas the routes declare (src/base/contract). */
const serverSchemas = {
  accountStatusSchema,
  assetSchema,
  assetsPageSchema,
  modelsSchema,
  errorBodySchema,
  generateResponseSchema,
  historyItemSchema,
  historyPageSchema,
  taskRecordSchema,
  tasksResponseSchema: taskBatchSchema,
  uploadResultSchema,
  webhookDeliveriesPageSchema,
  webhookSecretSchema,
};

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>;
  components: {
    schemas: Record<
      string,
      { properties?: Record<string, { type?: unknown; anyOf?: unknown }>; required?: string[] }
    >;
  };
};

/** Every key of `value` must be a property the schema documents (no undocumented fields). */
function assertDocumented(schema: z.ZodObject, value: Record<string, unknown>, where: string) {
  const parsed = schema.safeParse(value);
  assert.ok(parsed.success, `${where}: ${parsed.success ? '' : parsed.error.message}`);
  for (const key of Object.keys(value)) assert.ok(key in schema.shape, `${where}: undocumented field ${key}`);
}

describe('OpenAPI 3.1 document', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let doc: Doc;

  before(async () => {
    server = await startTestServer();
    const response = await fetch(`${server.baseUrl}/api/v1/openapi.json`);
    assert.equal(response.status, 200);
    doc = (await response.json()) as Doc;
  });
  after(() => server.close());

  test('is an OpenAPI 3.1 document whose every operation is a route the server answers', () => {
    assert.equal(doc.openapi, '3.1.0');
    const app = server.testApp.app;
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => [m, path] as const),
    );
    assert.ok(operations.length >= 10);
    for (const [method, path] of operations) {
      const url = path.replace(/\{(\w+)\}/g, ':$1');
      // A wildcard route (/files/*) is documented with a named parameter (/files/{key}); Gemini's
      // {model}:generateContent is a parameter with a pattern, then a literal colon.
      const gemini = path.replace(/\{(\w+)\}:(\w+)$/, ':$1(^[^:/]+)::$2');
      const served = [url, url.replace(/:\w+$/, '*'), gemini].some((candidate) =>
        app.hasRoute({ method: method.toUpperCase() as 'GET', url: candidate }),
      );
      assert.ok(served, `${method} ${path} is served`);
      const operation = doc.paths[path]?.[method];
      const responses = operation?.responses ?? {};
      // Public operations (security: [], e.g. /healthz, /files and sign-in) cannot answer 401.
      const authenticated = (operation as { security?: unknown[] } | undefined)?.security?.length !== 0;
      // The success answer: 200, or 204 for the website's answers without a body; 200 and 202 where
      // a request may ask to be answered asynchronously (the OpenAI image routes); a redirect (302)
      // where a browser is sent on (OAuth's /authorize).
      const success = Object.keys(responses).filter((status) => /^2\d\d$/.test(status));
      const redirects = success.length === 0 && '302' in responses;
      assert.ok(
        (success.length === 1 || success.join() === '200,202' || redirects) &&
          (!authenticated || '401' in responses) &&
          '500' in responses,
        `${method} ${path} lists its errors`,
      );
      if (success[0] === '204') {
        const answer = responses['204'] as { content?: unknown };
        assert.equal(answer.content, undefined, `${method} ${path}: a 204 answer has no body`);
      }
    }
  });

  test('request schemas are the validating ones: the documented generate body matches what the server accepts', async () => {
    const generate = doc.components.schemas.GenerateRequest;
    assert.deepEqual(generate?.required, ['prompt']);
    for (const field of ['prompt', 'model', 'mode', 'aspect', 'imageSize', 'count', 'imageUrls']) {
      assert.ok(generate?.properties?.[field], `GenerateRequest documents ${field}`);
    }
    assert.deepEqual(doc.components.schemas.UploadRequest?.required, ['source_url']);
  });

  test('real responses match the response schemas the document is generated from', async () => {
    const { app } = server.testApp;
    const h = bearer(server.apiKey);
    const generated = await app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: h,
      payload: { prompt: 'doc check', imageSize: '1K' },
    });
    assertDocumented(serverSchemas.generateResponseSchema, generated.json(), 'generate');
    const id = generated.json().task_ids[0];
    const { final } = await pollUntilFinal(app, server.apiKey, id);
    assertDocumented(serverSchemas.taskRecordSchema, final as unknown as Record<string, unknown>, 'task');
    const batch = await app.inject({ method: 'GET', url: `/api/v1/tasks?ids=${id},nope`, headers: h });
    assertDocumented(serverSchemas.tasksResponseSchema, batch.json(), 'batch');
    for (const record of batch.json().tasks)
      assertDocumented(serverSchemas.taskRecordSchema, record, 'batch item');
    const upload = await app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...h, 'content-type': 'image/png' },
      payload: await makePng(),
    });
    assertDocumented(serverSchemas.uploadResultSchema, upload.json(), 'upload');
    const history = (await app.inject({ method: 'GET', url: '/api/v1/history', headers: h })).json();
    assertDocumented(serverSchemas.historyPageSchema, history, 'history');
    for (const item of history.items) assertDocumented(serverSchemas.historyItemSchema, item, 'history item');
    assertDocumented(
      serverSchemas.accountStatusSchema,
      (await app.inject({ method: 'GET', url: '/api/v1/user/status', headers: h })).json(),
      'status',
    );
    const assets = (await app.inject({ method: 'GET', url: '/api/v1/assets', headers: h })).json();
    assertDocumented(serverSchemas.assetsPageSchema, assets, 'assets');
    for (const item of assets.items) assertDocumented(serverSchemas.assetSchema, item, 'asset');
    assertDocumented(
      serverSchemas.modelsSchema,
      (await app.inject({ method: 'GET', url: '/api/v1/models', headers: h })).json(),
      'models',
    );
    assertDocumented(
      serverSchemas.webhookSecretSchema,
      (await app.inject({ method: 'GET', url: '/api/v1/user/webhook-secret', headers: h })).json(),
      'webhook secret',
    );
    assertDocumented(
      serverSchemas.webhookDeliveriesPageSchema,
      (await app.inject({ method: 'GET', url: '/api/v1/webhooks/deliveries', headers: h })).json(),
      'deliveries',
    );
    const error = await app.inject({ method: 'GET', url: '/api/v1/tasks/nope', headers: h });
    assertDocumented(serverSchemas.errorBodySchema, error.json(), 'error');
  });

  test('the typed client (MCP, website) agrees with the document', async () => {
    const pairs: Array<[string, z.ZodType]> = [
      ['GenerateResponse', clientSchemas.generateResponseSchema],
      ['TaskRecord', clientSchemas.taskRecordSchema],
      ['TaskBatch', clientSchemas.tasksResponseSchema],
      ['UploadResult', clientSchemas.uploadResultSchema],
      ['HistoryPage', clientSchemas.historyPageSchema],
      ['AccountStatus', clientSchemas.accountStatusSchema],
      ['Error', clientSchemas.errorBodySchema],
    ];
    for (const [name, clientSchema] of pairs) {
      const documented = doc.components.schemas[name];
      assert.ok(documented, `${name} is documented`);
      const client = z.toJSONSchema(clientSchema, { io: 'output', unrepresentable: 'any' }) as {
        properties?: Record<string, { type?: unknown }>;
        required?: string[];
      };
      for (const field of client.required ?? []) {
        assert.ok(
          documented.required?.includes(field),
          `${name}.${field}: the client requires what the server always sends`,
        );
      }
      for (const [field, spec] of Object.entries(client.properties ?? {})) {
        const serverSpec: { type?: unknown } | undefined = documented.properties?.[field];
        assert.ok(serverSpec, `${name}.${field}: the client reads a documented field`);
        if (spec.type !== undefined && serverSpec.type !== undefined) {
          const norm = (t: unknown) => (t === 'integer' ? 'number' : t);
          assert.equal(norm(serverSpec.type), norm(spec.type), `${name}.${field} type`);
        }
      }
    }
    // …and it works against the live server, method by method.
    const client = createAtelierClient({ baseUrl: server.baseUrl, apiKey: server.apiKey });
    const { task_ids } = await client.generate({ prompt: 'client check', imageSize: '1K' });
    assert.equal(task_ids.length, 1);
    assert.equal((await client.getTask(task_ids[0] ?? '')).task_id, task_ids[0]);
    assert.equal((await client.getTasks([task_ids[0] ?? ''])).tasks.length, 1);
    assert.equal((await client.userStatus()).email, server.email);
    assert.ok((await client.history({ page: 1, limit: 5 })).total >= 1);
    const uploaded = await client.upload({ bytes: await makePng(), contentType: 'image/png' });
    assert.match(uploaded.url, /\/files\/uploads\//);
  });

  test('/docs renders every operation, with no external assets', async () => {
    const response = await fetch(`${server.baseUrl}/docs`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    const html = await response.text();
    for (const path of Object.keys(doc.paths))
      assert.ok(html.includes(path.replace(/[{}]/g, (c) => c)), `docs show ${path}`);
    assert.doesNotMatch(html, /<script|https?:\/\/(?!localhost|127\.0\.0\.1)[a-z]/i);
  });
});
