import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { OpenAPIV3_1 } from 'openapi-types';
import { createTestApp, type TestApp } from '../support/test-server.js';

// Issue 49: every status an operation can answer is listed on it. The rule is read from how the
// HTTP kit answers (src/edges/http/framework-refusals.ts and the authentication hooks), and checked
// here on the whole document, so an operation added later is held to it without being named.

type Operation = OpenAPIV3_1.OperationObject;

/** The statuses an operation can answer whatever its handler does, from what the document says of it. */
function requiredStatuses(method: string, operation: Operation, rootSecurity: unknown[]): string[] {
  const parameters = (operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
  const security = (operation.security ?? rootSecurity) as Record<string, unknown>[];
  const schemes = new Set(security.flatMap((requirement) => Object.keys(requirement)));
  const required = ['431', '500', '503'];
  // Validation, a body that is not JSON or of no accepted Content-Type.
  if (parameters.length > 0 || operation.requestBody) required.push('400');
  // The body's deadlines and size limit.
  if (operation.requestBody) required.push('408', '413');
  // An id that names nothing of the account (or is longer than the router takes).
  if (parameters.some((parameter) => parameter.in === 'path')) required.push('404');
  if (security.length > 0) {
    required.push('401');
    // A website session whose password an operator reset (any route a session opens); a read-only
    // key on a route that creates, changes or spends (any method but GET and HEAD).
    const session = schemes.has('websiteSession');
    if (session || !['get', 'head'].includes(method)) required.push('403');
  }
  return required;
}

/**
 * The statuses an OAuth operation can answer whatever its handler does (src/edges/oauth): Node and
 * the HTTP kit before any handler (431, 503, 408 at Node's request deadline), the failure of a
 * handler (500), the limit per address of every endpoint that reads input (429), its refusals
 * (400); and Express's body parsers under the MCP SDK's handlers (413, 415) where they read the
 * body — those answer 400 in OAuth's JSON; /authorize answers its problems as a page.
 */
function oauthRequiredStatuses(operation: Operation): string[] {
  const required = ['431', '500', '503'];
  if ((operation.parameters ?? []).length > 0 || operation.requestBody) required.push('400', '429');
  if (operation.requestBody) required.push('408');
  const refusal = operation.responses?.['400'] as OpenAPIV3_1.ResponseObject | undefined;
  if (operation.requestBody && refusal?.content?.['application/json']) required.push('413', '415');
  return required;
}

describe('every status an operation can answer is in the OpenAPI document', () => {
  let t: TestApp;
  let doc: OpenAPIV3_1.Document;

  before(async () => {
    t = await createTestApp({ startEngine: false });
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  });
  after(() => t.close());

  test('each operation lists the refusals its inputs, credentials and the framework can cause', () => {
    const missing: string[] = [];
    let operations = 0;
    for (const [path, methods] of Object.entries(doc.paths ?? {})) {
      for (const [method, operation] of Object.entries(methods as Record<string, Operation>)) {
        operations++;
        const listed = Object.keys(operation.responses ?? {});
        const required = operation.tags?.includes('OAuth')
          ? oauthRequiredStatuses(operation)
          : requiredStatuses(method, operation, doc.security ?? []);
        const absent = required.filter((status) => !listed.includes(status));
        if (absent.length > 0) missing.push(`${method.toUpperCase()} ${path}: ${absent.join(', ')}`);
      }
    }
    assert.ok(operations >= 100, `${operations} operations`);
    // OAuth's routes are in the document (issue 49), held to their own rule.
    for (const path of [
      '/authorize',
      '/token',
      '/register',
      '/revoke',
      '/.well-known/oauth-authorization-server',
    ])
      assert.ok(doc.paths?.[path], `${path} is documented`);
    assert.deepEqual(missing, [], 'statuses an operation can answer but does not list');
  });

  test('every error answer has a body schema (its error shape) and a description', () => {
    const bare: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths ?? {})) {
      for (const [method, operation] of Object.entries(methods as Record<string, Operation>)) {
        for (const [status, answer] of Object.entries(operation.responses ?? {})) {
          if (Number(status) < 400) continue;
          const { content, description } = answer as OpenAPIV3_1.ResponseObject;
          const schema = Object.values(content ?? {})[0]?.schema;
          if (!schema || !description) bare.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    assert.deepEqual(bare, []);
  });

  test('the rule can fail: an operation that leaves out a status it can answer is named', () => {
    const operation: Operation = {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'ok' }, '401': { description: 'no key' } },
    };
    assert.deepEqual(
      requiredStatuses('delete', operation, [{ bearer: [] }]).filter(
        (status) => !(status in (operation.responses ?? {})),
      ),
      ['431', '500', '503', '400', '404', '403'],
    );
  });
});
