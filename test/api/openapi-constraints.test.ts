import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { OpenAPIV3_1 } from 'openapi-types';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie, TEST_ORIGIN } from '../support/website-session.js';

// Issue 49: the document says what the server enforces. Each row of the issue's table, on the
// running app: the message a refusal reads, and the constraint the document states for it.

type Schema = OpenAPIV3_1.SchemaObject & { $ref?: string; items?: Schema };
type Operation = OpenAPIV3_1.OperationObject;

describe('the document states what the server enforces (issue 49)', () => {
  let t: TestApp;
  let apiKey: string;
  let cookie: string;
  let doc: OpenAPIV3_1.Document;

  const operation = (method: string, path: string) =>
    (doc.paths?.[path] as Record<string, Operation> | undefined)?.[method] as Operation;
  const parameter = (method: string, path: string, name: string) =>
    ((operation(method, path).parameters ?? []) as OpenAPIV3_1.ParameterObject[]).find((p) => p.name === name)
      ?.schema as Schema;
  const component = (name: string) => doc.components?.schemas?.[name] as Schema;
  const bodyOf = (method: string, path: string) => {
    const body = operation(method, path).requestBody as OpenAPIV3_1.RequestBodyObject;
    const schema = body.content['application/json']?.schema as Schema;
    return schema.$ref ? component(schema.$ref.split('/').pop() ?? '') : schema;
  };
  const web = () => ({ cookie, origin: TEST_ORIGIN });
  const field = (schema: Schema, name: string): Schema => {
    const found = schema.properties?.[name] as Schema | undefined;
    assert.ok(found, `${name} is documented`);
    return found;
  };

  before(async () => {
    t = await createTestApp({ startEngine: false });
    const account = await t.createAccount(undefined, { password: 'constraints constraints' });
    apiKey = account.apiKey;
    cookie = await signedInCookie(t.app, { email: account.email, password: 'constraints constraints' });
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  });
  after(() => t.close());

  test('row 1: a ZIP without ids says so in one sentence', async () => {
    for (const url of ['/api/v1/downloads/zip', '/web/api/downloads/zip']) {
      const headers = url.startsWith('/web') ? web() : bearer(apiKey);
      const answer = await t.app.inject({ method: 'GET', url, headers });
      assert.equal(assertError(answer, 400, 'invalid_request'), 'Name at least one id in works or assets');
      const posted = await t.app.inject({ method: 'POST', url, headers, payload: {} });
      assert.equal(assertError(posted, 400, 'invalid_request'), 'Name at least one id in works or assets');
    }
  });

  test('row 2: a refusal for missing credentials names what the route accepts', async () => {
    const site = await t.app.inject({ method: 'GET', url: '/web/api/account', headers: bearer(apiKey) });
    const siteMessage = assertError(site, 401, 'unauthorized');
    assert.match(siteMessage, /session/);
    assert.doesNotMatch(siteMessage, /Authorization: Bearer/);
    const admin = await t.app.inject({ method: 'GET', url: '/api/admin/v1/accounts' });
    assert.match(
      assertError(admin, 401, 'unauthorized'),
      /operator's API key .* or the session cookie of an operator/,
    );
    const api = await t.app.inject({ method: 'GET', url: '/api/v1/user/status' });
    assert.match(assertError(api, 401, 'unauthorized'), /Authorization: Bearer <API_KEY>/);
  });

  test('row 3: an id over its maximum is a documented 400 naming the field, in plain words', async () => {
    const long = 'x'.repeat(201);
    for (const [method, path] of [
      ['delete', '/web/api/account/oauth-grants/{id}'],
      ['get', '/web/api/oauth/authorizations/{id}'],
    ] as const) {
      assert.ok('400' in (operation(method, path).responses ?? {}), `${method} ${path} lists 400`);
      assert.equal(parameter(method, path, 'id').maxLength, 200);
      const answer = await t.app.inject({
        method: method.toUpperCase() as 'GET',
        url: path.replace('{id}', long),
        headers: web(),
      });
      assert.equal(assertError(answer, 400, 'invalid_request'), 'id must be at most 200 characters');
    }
    // Anywhere: no validator's own wording reaches a caller.
    const task = await t.app.inject({
      method: 'GET',
      url: `/api/admin/v1/tasks?q=${'y'.repeat(300)}`,
      headers: bearer(apiKey),
    });
    assert.doesNotMatch(task.body, /Too big|Too small|expected string|Invalid input/);
  });

  test('row 4: the ZIP takes its ids in a body too; 431 is documented where a URL can outgrow the limit', async () => {
    for (const path of ['/api/v1/downloads/zip', '/web/api/downloads/zip']) {
      assert.ok('431' in (operation('get', path).responses ?? {}), `GET ${path} lists 431`);
      const body = bodyOf('post', path);
      assert.equal(field(body, 'works').maxItems, 200);
      assert.equal((field(body, 'works').items as Schema).maxLength, 64);
      // 200 ids of the longest length fit; they name nothing of the account: 404, not 431.
      const ids = Array.from({ length: 200 }, (_, i) => `gen_${String(i).padStart(60, '0')}`);
      const headers = path.startsWith('/web') ? web() : bearer(apiKey);
      const answer = await t.app.inject({ method: 'POST', url: path, headers, payload: { works: ids } });
      assertError(answer, 404, 'not_found');
      const tooMany = await t.app.inject({
        method: 'POST',
        url: path,
        headers,
        payload: { works: ids, assets: ['ast_1'] },
      });
      assert.equal(
        assertError(tooMany, 400, 'invalid_request'),
        'works and assets name more than 200 ids in all',
      );
    }
  });

  test('row 5: enums, formats, ranges and lengths are in the document', () => {
    const provider = parameter('put', '/web/api/account/upstream-keys/{provider}', 'provider');
    assert.ok(Array.isArray(provider.enum) && provider.enum.includes('openai'), 'provider is an enum');
    for (const path of ['/api/v1/tasks', '/api/v1/tasks/events'])
      assert.ok(parameter('get', path, 'ids').pattern, `${path} ids has a pattern`);
    for (const name of ['from', 'to'])
      assert.equal(parameter('get', '/api/v1/user/usage', name).format, 'date');
    const limit = parameter('get', '/web/api/prompts', 'limit');
    assert.deepEqual([limit.minimum, limit.maximum], [1, 50]);
    const format = (
      (operation('get', '/files/{key}').parameters ?? []) as OpenAPIV3_1.ParameterObject[]
    ).find((p) => p.name === 'format');
    assert.match(format?.description ?? '', /without `w` is refused/);
    const idempotency = parameter('post', '/api/v1/generate', 'idempotency-key');
    assert.equal(idempotency.minLength, 1);
    const generate = component('GenerateRequest');
    for (const field of ['callbackUrl', 'maskUrl']) {
      const spec = generate.properties?.[field] as Schema;
      const formats = [spec.format, ...(spec.anyOf ?? []).map((s) => (s as Schema).format)];
      assert.ok(formats.includes('uri'), `${field} is a URI`);
    }
    const images = generate.properties?.imageUrls as Schema;
    const array = (images.anyOf ?? [images]).find((s) => (s as Schema).type === 'array') as Schema;
    assert.equal((array.items as Schema).format, 'uri');
    const account = bodyOf('post', '/api/admin/v1/accounts');
    assert.equal(field(account, 'email').format, 'email');
    const key = bodyOf('post', '/api/admin/v1/accounts/{id}/keys');
    assert.equal(field(key, 'name').maxLength, 64);
    assert.ok(field(key, 'name').pattern, 'a key name is not blank');
  });

  test('row 5: what the document allows the server takes, and what it refuses the document refuses', async () => {
    const h = bearer(apiKey);
    const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
      t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    const refused = [
      [await inject('GET', '/api/v1/tasks?ids=,', h), 'ids must name at least one task id'],
      [await inject('GET', '/api/v1/user/usage?from=0000-00-00', h), 'from must be a date YYYY-MM-DD'],
      [await inject('GET', '/web/api/prompts?limit=0', web()), 'limit must be between 1 and 50'],
      [
        await inject('POST', '/api/v1/generate', { ...h, 'idempotency-key': '' }, { prompt: 'x' }),
        /Idempotency-Key must be 1 to 255 characters/,
      ],
      [
        await inject('POST', '/api/v1/generate', h, { prompt: 'x', callbackUrl: '' }),
        'callbackUrl is not an absolute URL',
      ],
      [
        await inject('POST', '/api/v1/generate', h, { prompt: 'x', imageUrls: [''] }),
        'imageUrls[0] is not an absolute URL',
      ],
      [await inject('POST', '/api/admin/v1/accounts', h, { email: 'nobody' }), undefined],
    ] as const;
    for (const [answer, message] of refused) {
      if (message === undefined) {
        // Not an operator: refused before the body (403), whatever it holds.
        assert.equal(answer.statusCode, 403);
        continue;
      }
      const text = assertError(answer, 400, 'invalid_request');
      if (typeof message === 'string') assert.equal(text, message);
      else assert.match(text, message);
    }
  });
});
