import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { OpenAPIV3_1 } from 'openapi-types';
import { createTestApp, type TestApp } from '../../test/support/test-server.js';
import { WEBSITE_SESSION_SCHEME, WEBSITE_TAG, websiteSessionSecurityScheme } from '../contract/website.js';
import { installErrorHandling } from '../http/error-handler.js';
import { createWebsite } from './website.js';

const WEBSITE_ROUTES = [
  'post /web/api/session',
  'delete /web/api/session',
  'get /web/api/session',
  'post /web/api/generate',
  'get /web/api/tasks/pending',
  'get /web/api/works',
  'delete /web/api/works/{id}',
  'get /web/api/assets',
  'get /web/api/account',
  'put /web/api/account/upstream-keys/{provider}',
  'delete /web/api/account/upstream-keys/{provider}',
  'post /web/api/account/api-key',
];

/** The website's route schemas, as @fastify/swagger documents them (the static pages stay out). */
describe('website API in the OpenAPI document', () => {
  let t: TestApp;
  let app: FastifyInstance;
  let document: OpenAPIV3_1.Document;

  before(async () => {
    t = await createTestApp({ startEngine: false });
    app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    installErrorHandling(app);
    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Atelier website API', version: '1' },
        components: { securitySchemes: { [WEBSITE_SESSION_SCHEME]: websiteSessionSecurityScheme } },
      },
      transform: jsonSchemaTransform,
    });
    await app.register(fastifyCookie);
    const { core } = t;
    const website = createWebsite({
      publicBaseUrl: core.config.publicBaseUrl,
      db: core.db,
      clock: core.clock,
      accounts: core.accounts,
      upstreamAccess: core.upstreamAccess,
      generations: core.generations,
      tasks: core.tasks,
      assets: core.assets,
    });
    await app.register(website.plugin);
    await app.ready();
    document = app.swagger() as OpenAPIV3_1.Document;
  });
  after(async () => {
    await app.close();
    await t.close();
  });

  test('every /web/api route is documented under the website tag, and nothing else is', () => {
    const documented = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item ?? {}).map((method) => `${method} ${path}`),
    );
    assert.deepEqual(documented.sort(), [...WEBSITE_ROUTES].sort());
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item ?? {}) as [
        string,
        OpenAPIV3_1.OperationObject,
      ][]) {
        const name = `${method} ${path}`;
        assert.deepEqual(operation.tags, [WEBSITE_TAG], name);
        assert.ok(operation.summary && operation.description, `${name} is described`);
        const answers = Object.keys(operation.responses ?? {});
        assert.ok(
          answers.some((status) => status.startsWith('2')),
          `${name} documents its success`,
        );
        assert.ok(
          answers.some((status) => status.startsWith('4')),
          `${name} documents its errors`,
        );
      }
    }
  });

  test('signed-in routes name the session cookie as their security; sign-in and sign-out do not', () => {
    const security = (method: string, path: string) =>
      (document.paths?.[path] as Record<string, OpenAPIV3_1.OperationObject> | undefined)?.[method]?.security;
    assert.deepEqual(security('get', '/web/api/account'), [{ [WEBSITE_SESSION_SCHEME]: [] }]);
    assert.equal(security('post', '/web/api/session'), undefined);
    assert.equal(security('delete', '/web/api/session'), undefined);
  });

  test('query parameters carry their descriptions; the document validates', async () => {
    const works = document.paths?.['/web/api/works']?.get;
    const parameters = (works?.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
    assert.deepEqual(parameters.map((p) => [p.name, p.in]).sort(), [
      ['limit', 'query'],
      ['page', 'query'],
    ]);
    assert.ok(parameters.every((p) => typeof p.description === 'string' && p.description.length > 0));
    await SwaggerParser.validate(structuredClone(document) as never);
  });
});
