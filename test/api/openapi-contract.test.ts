import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { assertError, bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { exerciseActionRoute, exerciseCatalogAndQuoteRoutes } from '../support/catalog-contract.js';
import { exerciseChatCompletions } from '../support/chat-contract.js';
import { exerciseCurationRoutes } from '../support/curation-contract.js';
import { exerciseGeminiRoutes } from '../support/gemini-contract.js';
import {
  assertGeneratedTypesAccept,
  contractChecker,
  type OpenApiDoc,
  openApiDocumentOf,
  operationsOf,
} from '../support/openapi-contract.js';
import { exerciseResponses } from '../support/responses-contract.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/** The website's pages and static files (the SPA fallback): not part of the API. */
const WEBSITE_PAGES = new Set(['/', '/*']);
/** The API's own description: served, not listed in itself. */
const DESCRIBES_THE_API = new Set(['/api/v1/openapi.json', '/docs']);
/** The operator's Prometheus scrape (text format, its own token): not part of the API. */
const FOR_THE_OPERATOR = new Set(['/metrics']);
/** The remote MCP endpoints (JSON-RPC), MCP's discovery document and its icon: docs/mcp.md, not REST. */
const SPEAKS_MCP = new Set(['/mcp', '/mcp/readonly', '/.well-known/mcp/server.json', '/mcp/icon.svg']);
/** CORS preflights (OPTIONS): the OAuth endpoints' cors middleware answers them; no operation of their own. */
const isPreflight = (method: string) => method === 'options';

/** The OpenAI-compatible routes, success and errors in OpenAI's shape. */
async function exerciseOpenAiRoutes(
  exercise: ReturnType<typeof contractChecker>['exercise'],
  h: { authorization: string },
) {
  const json = { ...h, 'content-type': 'application/json' };
  await exercise('GET', '/v1/models', { url: '/v1/models', headers: h }, 200);
  await exercise('GET', '/v1/models', { url: '/v1/models', headers: bearer('atl_x') }, 401);
  const model = '/v1/models/{model}';
  await exercise('GET', model, { url: '/v1/models/gpt-image-1', headers: h }, 200);
  await exercise('GET', model, { url: '/v1/models/no-such-model', headers: h }, 404);
  await exercise('GET', model, { url: '/v1/models/pro', headers: bearer('atl_x') }, 401);
  const generations = '/v1/images/generations';
  const prompt = { prompt: 'contract', size: '1024x1024' };
  await exercise('POST', generations, { url: generations, headers: json, payload: prompt }, 200);
  await exercise(
    'POST',
    generations,
    { url: generations, headers: json, payload: { prompt: 'x', size: 'big' } },
    400,
  );
  await exercise(
    'POST',
    generations,
    { url: generations, headers: json, payload: { prompt: 'x', model: 'no' } },
    404,
  );
  await exercise(
    'POST',
    generations,
    { url: generations, headers: json, payload: { prompt: '[[fail]]' } },
    502,
  );
  const edits = '/v1/images/edits';
  /** An edit's multipart form: an image part and these text fields. */
  const editForm = async (fields: Record<string, string>) => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(await makePng())], { type: 'image/png' }), 'a.png');
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    const multipart = new Request('http://localhost/', { method: 'POST', body: form });
    const payload = Buffer.from(await multipart.arrayBuffer());
    return { payload, headers: { ...h, 'content-type': multipart.headers.get('content-type') ?? '' } };
  };
  const { payload, headers } = await editForm({ prompt: 'contract edit' });
  await exercise('POST', edits, { url: edits, headers, payload }, 200);
  await exercise('POST', edits, { url: edits, headers: json, payload: { prompt: 'x' } }, 400);

  // stream: true answers text/event-stream: partial frames then the image, or an error event.
  const stream = { ...prompt, stream: true, partial_images: 1 };
  await exercise('POST', generations, { url: generations, headers: json, payload: stream }, 200);
  const failing = { prompt: '[[fail]]', stream: true };
  await exercise('POST', generations, { url: generations, headers: json, payload: failing }, 200);
  const streamed = await editForm({ prompt: 'contract edit', stream: 'true', partial_images: '1' });
  await exercise('POST', edits, { url: edits, ...streamed }, 200);

  await exerciseChatCompletions(exercise, h);

  // Asynchronous (Prefer: respond-async): 202 with the envelope, and its GET.
  const prefer = { prefer: 'respond-async' };
  const accepted = await exercise(
    'POST',
    generations,
    { url: generations, headers: { ...json, ...prefer }, payload: prompt },
    202,
  );
  const editAccepted = await exercise(
    'POST',
    edits,
    { url: edits, headers: { ...headers, ...prefer }, payload },
    202,
  );
  for (const [path, answer] of [
    ['/v1/images/generations/{id}', accepted],
    ['/v1/images/edits/{id}', editAccepted],
  ] as const) {
    const url = String(answer.headers.location);
    await exercise('GET', path, { url: `${url}?wait=60`, headers: h }, 200);
    await exercise('GET', path, { url: `${url}?wait=-1`, headers: h }, 400);
    await exercise('GET', path, { url, headers: bearer('atl_x') }, 401);
    await exercise('GET', path, { url: path.replace('{id}', 'imgtask_none'), headers: h }, 404);
  }
  await exerciseResponses(exercise, h);
}

/**
 * The document's path of a route URL: `:id` → `{id}` (a pattern after it dropped), a literal `::`
 * → `:` (Gemini's `{model}:generateContent`), a trailing `*` → `{key}`.
 */
const documentedPath = (url: string) =>
  url
    .replace(/::/g, '\u0000')
    .replace(/:(\w+)(?:\([^)]*\))?/g, '{$1}')
    .replaceAll('\u0000', ':')
    .replace(/\/\*$/, '/{key}');

describe('the OpenAPI document is the contract of every route', () => {
  let t: TestApp;
  let app: FastifyInstance;
  let doc: OpenApiDoc;
  let receiver: Server;
  let checker: ReturnType<typeof contractChecker>;
  const routes: RouteOptions[] = [];
  /** The webhook payloads the callback receiver got. */
  const callbacks: unknown[] = [];

  before(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        callbacks.push(JSON.parse(body));
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as { port: number }).port;
    t = await createTestApp({ env: { ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${port}` } });
    // A second app over the same core, built with an observer: every route it registers.
    app = await buildApp(t.core, { onRoute: (route) => routes.push(route) });
    await app.ready();
    doc = await openApiDocumentOf(app);
    checker = contractChecker(app, doc);
  });
  after(async () => {
    await app?.close();
    await t?.close();
    receiver?.close();
  });

  test('every registered route is documented, or left out for a stated reason', () => {
    const documented = new Set(operationsOf(doc));
    const missing: string[] = [];
    for (const route of routes) {
      const methods = ([] as string[]).concat(route.method).map((m) => m.toLowerCase());
      for (const method of methods) {
        const url = route.url;
        if (
          WEBSITE_PAGES.has(url) ||
          DESCRIBES_THE_API.has(url) ||
          FOR_THE_OPERATOR.has(url) ||
          SPEAKS_MCP.has(url) ||
          isPreflight(method)
        )
          continue;
        // HEAD answers like the GET of the same path (Fastify's automatic HEAD, or /files' own).
        const asDocumented = method === 'head' ? 'get' : method;
        // The /v1 alias serves exactly the /api/v1 routes (the spec writes both); the
        // OpenAI-compatible /v1 routes are documented under their own paths.
        // The Gemini generate routes are served again under /v1 (where @google/genai 3 calls them
        // by default): documented once, under /v1beta.
        const own = documentedPath(url.includes('::') ? url.replace(/^\/v1\//, '/v1beta/') : url);
        const path = documentedPath(url.startsWith('/v1/') ? `/api${url}` : url);
        if (!documented.has(`${asDocumented} ${own}`) && !documented.has(`${asDocumented} ${path}`))
          missing.push(`${method} ${url}`);
      }
    }
    assert.deepEqual(missing, []);
    assert.ok(documented.size >= 15, 'the document lists the API');
  });

  test('every documented answer matches what the route really returns', async () => {
    const { ajv, exercise, exercised } = checker;
    const h = bearer((await t.createAccount()).apiKey);
    const json = { ...h, 'content-type': 'application/json' };
    await exercise('GET', '/healthz', { url: '/healthz' }, 200);

    const uploaded = await exercise(
      'POST',
      '/api/v1/upload',
      { url: '/api/v1/upload', headers: { ...h, 'content-type': 'image/png' }, payload: await makePng() },
      200,
    );
    await exercise('POST', '/api/v1/upload', { url: '/api/v1/upload', headers: json, payload: {} }, 400);
    const fileUrl = new URL(uploaded.json().url).pathname;
    await exercise('GET', '/files/{key}', { url: fileUrl }, 200);
    await exercise('GET', '/files/{key}', { url: '/files/uploads/none.png' }, 404);

    const port = (receiver.address() as { port: number }).port;
    const generated = await exercise(
      'POST',
      '/api/v1/generate',
      {
        url: '/api/v1/generate',
        headers: json,
        payload: { prompt: 'contract', imageSize: '1K', callbackUrl: `http://127.0.0.1:${port}/hook` },
      },
      200,
    );
    await exercise(
      'POST',
      '/api/v1/generate',
      { url: '/api/v1/generate', headers: json, payload: { count: 'x' } },
      400,
    );
    const [id] = generated.json().task_ids as string[];
    await pollUntilFinal(app, h.authorization.slice('Bearer '.length), id ?? '');
    await exercise('GET', '/api/v1/tasks/{task_id}', { url: `/api/v1/tasks/${id}`, headers: h }, 200);
    await exercise('GET', '/api/v1/tasks/{task_id}', { url: '/api/v1/tasks/nope', headers: h }, 404);
    await exercise('GET', '/api/v1/tasks', { url: `/api/v1/tasks?ids=${id},nope`, headers: h }, 200);
    await exercise('GET', '/api/v1/tasks', { url: '/api/v1/tasks', headers: h }, 400);
    await exercise('GET', '/api/v1/tasks/events', { url: `/api/v1/tasks/events?ids=${id}`, headers: h }, 200);
    await exercise('GET', '/api/v1/tasks/events', { url: '/api/v1/tasks/events?ids=,', headers: h }, 400);
    await exercise(
      'POST',
      '/api/v1/tasks/{task_id}/cancel',
      { url: `/api/v1/tasks/${id}/cancel`, headers: json },
      409,
    );
    const second = await app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: json,
      payload: { prompt: 'x' },
    });
    const [queued] = second.json().task_ids as string[];
    await exercise(
      'POST',
      '/api/v1/tasks/{task_id}/cancel',
      { url: `/api/v1/tasks/${queued}/cancel`, headers: json },
      200,
    );

    await exercise('GET', '/api/v1/history', { url: '/api/v1/history?limit=5', headers: h }, 200);
    await exercise('GET', '/api/v1/history', { url: '/api/v1/history?limit=0', headers: h }, 400);
    const latest = await app.inject({ method: 'GET', url: '/api/v1/history?limit=1', headers: h });
    const workId = latest.json().items[0].id as string;
    const versionsPath = '/api/v1/history/{id}/versions';
    await exercise('GET', versionsPath, { url: `/api/v1/history/${workId}/versions`, headers: h }, 200);
    await exercise('GET', versionsPath, { url: '/api/v1/history/gen_unknown/versions', headers: h }, 404);
    await exerciseCurationRoutes(exercise, { prefix: '/api/v1', headers: h, workId });
    await exercise('GET', '/api/v1/user/status', { url: '/api/v1/user/status', headers: h }, 200);
    await exercise('GET', '/api/v1/user/status', { url: '/api/v1/user/status' }, 401);
    const usage = await exercise('GET', '/api/v1/user/usage', { url: '/api/v1/user/usage', headers: h }, 200);
    // One task completed, one canceled above: both counted, today.
    assert.deepEqual(usage.json().totals, { completed: 1, failed: 1, cost_micros: 0 });
    await exercise(
      'GET',
      '/api/v1/user/usage',
      { url: '/api/v1/user/usage?from=2026-02-30', headers: h },
      400,
    );
    await exercise('GET', '/api/v1/assets', { url: '/api/v1/assets', headers: h }, 200);
    await exercise('GET', '/api/v1/assets', { url: '/api/v1/assets?kind=x', headers: h }, 400);
    const assets = (await app.inject({ method: 'GET', url: '/api/v1/assets', headers: h })).json()
      .items as Array<{
      id: string;
      kind: string;
    }>;
    const oneAsset = '/api/v1/assets/{id}';
    const ownUpload = assets.find((asset) => asset.kind === 'upload')?.id ?? '';
    const ownResult = assets.find((asset) => asset.kind === 'result')?.id ?? '';
    await exercise('DELETE', oneAsset, { url: `/api/v1/assets/${ownResult}`, headers: h }, 409);
    await exercise('DELETE', oneAsset, { url: `/api/v1/assets/${ownUpload}`, headers: h }, 204);
    await exercise('DELETE', oneAsset, { url: `/api/v1/assets/${ownUpload}`, headers: h }, 404);
    // A deleted upload's file, once the lifecycle removed it, is gone for good.
    const ownFile = assets.find((asset) => asset.id === ownUpload) as { url?: string } | undefined;
    await t.core.lifecycle.runOnce();
    await exercise('GET', '/files/{key}', { url: new URL(ownFile?.url ?? '').pathname }, 410);
    await exercise('GET', '/api/v1/models', { url: '/api/v1/models', headers: h }, 200);
    await exerciseActionRoute(exercise, app, h);
    await exerciseCatalogAndQuoteRoutes(exercise, h);
    await exercise(
      'GET',
      '/api/v1/models',
      { url: '/api/v1/models', headers: { authorization: 'Bearer atl_x' } },
      401,
    );
    await exerciseOpenAiRoutes(exercise, h);
    await exerciseGeminiRoutes(exercise, h);
    await exercise(
      'GET',
      '/api/v1/user/webhook-secret',
      { url: '/api/v1/user/webhook-secret', headers: h },
      200,
    );
    await exercise('GET', '/api/v1/user/webhook-secret', { url: '/api/v1/user/webhook-secret' }, 401);

    const deliveries = async () =>
      (await app.inject({ method: 'GET', url: '/api/v1/webhooks/deliveries', headers: h })).json()
        .items as Array<{
        id: string;
        state: string;
      }>;
    for (let i = 0; i < 100 && !(await deliveries()).some((d) => d.state !== 'pending'); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const [delivery] = await deliveries();
    assert.ok(delivery, 'the callback was delivered');
    const payload = ajv.compile({ $ref: 'openapi#/components/schemas/WebhookPayload' });
    assert.ok(
      callbacks.length > 0 && callbacks.every((body) => payload(body)),
      ajv.errorsText(payload.errors),
    );
    await exercise(
      'GET',
      '/api/v1/webhooks/deliveries',
      { url: '/api/v1/webhooks/deliveries', headers: h },
      200,
    );
    await exercise(
      'GET',
      '/api/v1/webhooks/deliveries',
      { url: '/api/v1/webhooks/deliveries?page=0', headers: h },
      400,
    );
    const redeliver = '/api/v1/webhooks/deliveries/{id}/redeliver';
    await exercise(
      'POST',
      redeliver,
      { url: `/api/v1/webhooks/deliveries/${delivery.id}/redeliver`, headers: json },
      200,
    );
    await exercise(
      'POST',
      redeliver,
      { url: '/api/v1/webhooks/deliveries/msg_none/redeliver', headers: json },
      404,
    );
    const rotate = '/api/v1/user/webhook-secret/rotate';
    await exercise('POST', rotate, { url: rotate, headers: json, payload: { grace_seconds: 60 } }, 200);
    await exercise('POST', rotate, { url: rotate, headers: h }, 200);
    await exercise('POST', rotate, { url: rotate, headers: json, payload: { grace_seconds: -1 } }, 400);
    await exercise('POST', rotate, { url: rotate }, 401);
    assertError(await app.inject({ method: 'GET', url: '/api/v1/tasks/nope', headers: h }), 404, 'not_found');

    // The website's own API (/web/api) is exercised by openapi-website.test.ts, signed in; the
    // operator console's (/api/admin/v1) by test/admin/openapi-admin.test.ts, as an operator;
    // OAuth's routes by openapi-oauth.test.ts, over real connections.
    const oauth = /^\w+ \/(authorize|token|register|revoke|\.well-known\/oauth)/;
    const elsewhere = (operation: string) =>
      operation.includes(' /web/api/') || operation.includes(' /api/admin/') || oauth.test(operation);
    assert.deepEqual(
      operationsOf(doc).filter((operation) => !elsewhere(operation) && !exercised.has(operation)),
      [],
      'every documented operation is exercised',
    );
  });

  test('independent validators accept the document: swagger-parser and Redocly (recommended)', async () => {
    await SwaggerParser.validate(structuredClone(doc) as never);
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: 'openapi.json',
      config,
    });
    const errors = problems.filter((problem) => problem.severity === 'error');
    assert.deepEqual(
      errors.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`),
      [],
    );
  });

  test('a client generated from the document (openapi-typescript) type-checks against real answers', async () => {
    assert.ok(checker.captured.length >= 20, 'answers were captured');
    await assertGeneratedTypesAccept(doc, checker.captured);
  });
});
