import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import {
  WEBSITE_SESSION_SCHEME,
  WEBSITE_TAG,
  websiteSessionSecurityScheme,
} from '../../src/base/contract/website/shared.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

const WEBSITE_ROUTES = [
  'post /web/api/session',
  'delete /web/api/session',
  'get /web/api/session',
  'post /web/api/generate',
  'get /web/api/tasks/pending',
  'post /web/api/tasks/cleared',
  'get /web/api/tasks/estimates',
  'get /web/api/tasks/{id}/preview',
  'get /web/api/prompts',
  'get /web/api/presets',
  'put /web/api/presets/{name}',
  'delete /web/api/presets/{name}',
  'get /web/api/works',
  'delete /web/api/works/{id}',
  'get /web/api/works/{id}',
  'get /web/api/works/{id}/versions',
  'post /web/api/works/{id}/actions',
  'put /web/api/works/{id}/star',
  'delete /web/api/works/{id}/star',
  'get /web/api/collections',
  'post /web/api/collections',
  'patch /web/api/collections/{id}',
  'delete /web/api/collections/{id}',
  'put /web/api/collections/{id}/items/{generation_id}',
  'delete /web/api/collections/{id}/items/{generation_id}',
  'get /web/api/smart-collections',
  'post /web/api/smart-collections',
  'patch /web/api/smart-collections/{id}',
  'delete /web/api/smart-collections/{id}',
  'get /web/api/downloads/zip',
  'post /web/api/downloads/zip',
  'get /web/api/assets',
  'delete /web/api/assets/{id}',
  'get /web/api/account',
  'get /web/api/account/usage',
  'put /web/api/account/spend-confirmation',
  'get /web/api/account/export',
  'post /web/api/account/erase',
  'put /web/api/account/keys/{id}/retention',
  'put /web/api/account/upstream-keys/{provider}',
  'delete /web/api/account/upstream-keys/{provider}',
  'get /web/api/account/keys',
  'post /web/api/account/keys',
  'delete /web/api/account/keys/{id}',
  'get /web/api/account/oauth-grants',
  'delete /web/api/account/oauth-grants/{id}',
  'get /web/api/oauth/authorizations/{id}',
  'post /web/api/oauth/authorizations/{id}',
  'post /web/api/account/api-key',
  'post /web/api/account/password',
  'delete /web/api/sessions',
];

/** The website's route schemas, as the served document (/api/v1/openapi.json) lists them. */
describe('website API in the OpenAPI document', () => {
  let t: TestApp;
  let document: OpenAPIV3_1.Document;

  before(async () => {
    t = await createTestApp({ startEngine: false });
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(response.statusCode, 200);
    document = response.json() as OpenAPIV3_1.Document;
  });
  after(() => t.close());

  const operations = () =>
    Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      (Object.entries(item ?? {}) as [string, OpenAPIV3_1.OperationObject][]).map(
        ([method, operation]) => [`${method} ${path}`, operation] as const,
      ),
    );

  test('exactly the /web/api routes are documented under the website tag, nothing else is, and none is a page', () => {
    const tagged = operations()
      .filter(([, operation]) => operation.tags?.includes(WEBSITE_TAG))
      .map(([name]) => name);
    assert.deepEqual(tagged.sort(), [...WEBSITE_ROUTES].sort());
    const underWebApi = operations()
      .map(([name]) => name)
      .filter((name) => name.split(' ')[1]?.startsWith('/web/'));
    assert.deepEqual(underWebApi.sort(), [...WEBSITE_ROUTES].sort(), 'the static pages stay out');
    assert.ok(document.tags?.some((tag) => tag.name === WEBSITE_TAG && tag.description));
    for (const [name, operation] of operations()) {
      if (!WEBSITE_ROUTES.includes(name)) continue;
      assert.deepEqual(operation.tags, [WEBSITE_TAG], name);
      assert.ok(operation.summary && operation.description, `${name} is described`);
      const answers = Object.keys(operation.responses ?? {});
      assert.ok(
        answers.some((status) => status.startsWith('2')),
        `${name} documents its success`,
      );
      // Asking whether one is signed in has no client error: signed out is an answer.
      if (name !== 'get /web/api/session')
        assert.ok(
          answers.some((status) => status.startsWith('4')),
          `${name} documents its errors`,
        );
      // Besides what any request may meet (request line and headers over 16 kB, a server shutting down).
      else assert.deepEqual(answers, ['200', '431', '500', '503'], `${name} answers 200 signed in or not`);
      // Every state-changing route refuses a cross-site request.
      if (!name.startsWith('get ')) assert.ok(answers.includes('403'), `${name} documents the 403`);
    }
  });

  test('signed-in routes name the session cookie as their security; the session routes are public', () => {
    assert.deepEqual(document.components?.securitySchemes?.[WEBSITE_SESSION_SCHEME], {
      ...websiteSessionSecurityScheme,
    });
    const security = (method: string, path: string) =>
      (document.paths?.[path] as Record<string, OpenAPIV3_1.OperationObject> | undefined)?.[method]?.security;
    for (const name of WEBSITE_ROUTES) {
      const [method = '', path = ''] = name.split(' ');
      const expected = path === '/web/api/session' ? [] : [{ [WEBSITE_SESSION_SCHEME]: [] }];
      assert.deepEqual(security(method, path), expected, name);
    }
  });

  test('query parameters carry their descriptions; the document validates', async () => {
    const works = document.paths?.['/web/api/works']?.get;
    const parameters = (works?.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
    assert.deepEqual(parameters.map((p) => [p.name, p.in]).sort(), [
      ['collection', 'query'],
      ['from', 'query'],
      ['limit', 'query'],
      ['mode', 'query'],
      ['model', 'query'],
      ['page', 'query'],
      ['q', 'query'],
      ['starred', 'query'],
      ['to', 'query'],
    ]);
    assert.ok(parameters.every((p) => typeof p.description === 'string' && p.description.length > 0));
    await SwaggerParser.validate(structuredClone(document) as never);
  });
});
