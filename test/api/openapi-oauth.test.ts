import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { MemoryOAuthClient, pkcePair } from '../support/oauth-client.js';
import { grantsOver } from '../support/oauth-contract.js';
import {
  assertGeneratedTypesAccept,
  type CapturedAnswer,
  type OpenApiDoc,
  operationsOf,
} from '../support/openapi-contract.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

// Issue 49, row 6: OAuth's routes (sign-in for hosted MCP clients) are in the OpenAPI document, with
// OAuth's error shape as the documented exception. Express answers them (inside the app, over real
// connections only), so they are exercised here over HTTP: every answer's status is one its
// operation documents, and its JSON body matches the schema documented for that status — OAuth's
// `{ error, error_description }` for the refusals, Atelier's shape for what Node answers first.

const FORM = 'application/x-www-form-urlencoded';
const REDIRECT = 'http://127.0.0.1:7777/callback';

describe("OAuth's routes answer as the OpenAPI document says", () => {
  let t: TestApp;
  let doc: OpenApiDoc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const exercised = new Set<string>();
  const captured: CapturedAnswer[] = [];

  before(async () => {
    t = await createTestApp({ listen: true, startEngine: false });
    doc = (await (await fetch(`${t.baseUrl}/api/v1/openapi.json`)).json()) as OpenApiDoc;
    ajv.addSchema({ $id: 'openapi', components: doc.components });
  });
  after(() => t?.close());

  /** Sends a request; asserts its status, that the operation documents it, and its JSON body against the schema. */
  async function exercise(
    method: 'GET' | 'POST',
    path: string,
    init: { url?: string; headers?: Record<string, string>; body?: string },
    expected: number,
  ): Promise<{ status: number; body: unknown; location: string | null }> {
    const response = await fetch(`${t.baseUrl}${init.url ?? path}`, {
      method,
      headers: init.headers,
      body: init.body,
      redirect: 'manual',
    });
    const text = await response.text();
    assert.equal(response.status, expected, `${method} ${init.url ?? path}: ${text.slice(0, 300)}`);
    const lower = method.toLowerCase();
    const answer = doc.paths[path]?.[lower]?.responses[String(expected)];
    assert.ok(answer, `${lower} ${path} documents ${expected}`);
    exercised.add(`${lower} ${path}`);
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0] ?? '';
    const documented = answer.content?.[mediaType]?.schema;
    if (expected !== 302) assert.ok(documented, `${lower} ${path} ${expected} documents ${mediaType}`);
    const location = response.headers.get('location');
    if (mediaType !== 'application/json') return { status: response.status, body: text, location };
    const schema = JSON.parse(
      JSON.stringify(documented).replaceAll('"#/components/', '"openapi#/components/'),
    );
    const validate = ajv.compile(schema);
    const body = JSON.parse(text) as unknown;
    assert.ok(validate(body), `${method} ${path} ${expected}: ${ajv.errorsText(validate.errors)} in ${text}`);
    captured.push({ path, method: lower, status: expected, body });
    return { status: response.status, body, location };
  }
  const form = (fields: Record<string, string>) => ({
    headers: { 'content-type': FORM },
    body: new URLSearchParams(fields).toString(),
  });
  const json = (value: unknown, contentType = 'application/json') => ({
    headers: { 'content-type': contentType },
    body: typeof value === 'string' ? value : JSON.stringify(value),
  });

  test('metadata, registration, authorization, tokens and revocation: successes and refusals', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ])
      await exercise('GET', path, {}, 200);

    const metadata = new MemoryOAuthClient(REDIRECT).clientMetadata;
    const registered = await exercise('POST', '/register', json(metadata), 201);
    const clientId = (registered.body as { client_id: string }).client_id;
    const refused = await exercise(
      'POST',
      '/register',
      json({ redirect_uris: ['http://a.example/cb'] }),
      400,
    );
    assert.equal((refused.body as { error: string }).error, 'invalid_client_metadata');
    await exercise('POST', '/register', json('{"redirect_uris": ['), 400);
    await exercise('POST', '/register', json(metadata, 'application/json; charset=koi8-r'), 415);
    await exercise('POST', '/register', json({ ...metadata, client_name: 'x'.repeat(120_000) }), 413);

    // /authorize: a page naming the problem, or the consent page (GET and the form alike).
    await exercise('GET', '/authorize', { url: '/authorize?response_type=code' }, 400);
    const pkce = pkcePair();
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      state: 'contract',
    };
    const consent = await exercise(
      'GET',
      '/authorize',
      { url: `/authorize?${new URLSearchParams(params)}` },
      302,
    );
    assert.match(consent.location ?? '', /\/oauth\/consent\?request=/);
    await exercise('POST', '/authorize', form(params), 302);
    await exercise('POST', '/authorize', form({ client_id: 'unknown' }), 400);

    // The code, allowed through the store as the consent page would, exchanged over HTTP.
    const { grants } = await grantsOver(t.core, t.baseUrl);
    const account = await t.createAccount();
    const request = new URL(consent.location ?? '').searchParams.get('request') ?? '';
    const code = new URL((await grants.decide(request, account.id, true)) ?? '').searchParams.get('code');
    const exchange = { grant_type: 'authorization_code', client_id: clientId, redirect_uri: REDIRECT };
    const tokens = await exercise(
      'POST',
      '/token',
      form({ ...exchange, code: code ?? '', code_verifier: pkce.verifier }),
      200,
    );
    const { refresh_token } = tokens.body as { refresh_token: string };
    const refreshed = await exercise(
      'POST',
      '/token',
      form({ grant_type: 'refresh_token', client_id: clientId, refresh_token }),
      200,
    );
    // A code presented again (with a wrong verifier, too): invalid_grant.
    const wrong = await exercise(
      'POST',
      '/token',
      form({ ...exchange, code: code ?? '', code_verifier: pkcePair().verifier }),
      400,
    );
    assert.equal((wrong.body as { error: string }).error, 'invalid_grant');
    for (const fields of [
      { grant_type: 'refresh_token', client_id: 'nobody', refresh_token } as Record<string, string>,
      { grant_type: 'password', client_id: clientId },
      { client_id: clientId },
    ])
      await exercise('POST', '/token', form(fields), 400);
    await exercise('POST', '/token', json({ grant_type: 'refresh_token' }), 400);
    await exercise(
      'POST',
      '/token',
      { ...form({ client_id: clientId }), body: 'a='.padEnd(120_000, 'x') },
      413,
    );

    const { access_token } = refreshed.body as { access_token: string };
    await exercise('POST', '/revoke', form({ client_id: clientId, token: access_token }), 200);
    await exercise('POST', '/revoke', form({ client_id: clientId }), 400);
    await exercise('POST', '/revoke', form({ client_id: 'nobody', token: access_token }), 400);
    // What Node answers before any handler: Atelier's shape, as documented.
    await exercise(
      'POST',
      '/revoke',
      { ...form({}), headers: { 'content-type': FORM, 'x-big': 'x'.repeat(17_000) } },
      431,
    );
  });

  test('over its limit, each endpoint answers 429 in OAuth’s shape', async () => {
    const metadata = new MemoryOAuthClient(REDIRECT).clientMetadata;
    const limited = async (method: 'GET' | 'POST', path: string, init: object, ordinary: number) => {
      for (let i = 0; i < 120; i++) {
        const response = await fetch(`${t.baseUrl}${path}`, { method, redirect: 'manual', ...init });
        await response.arrayBuffer();
        if (response.status === 429) break;
        assert.equal(response.status, ordinary);
      }
      const answer = await exercise(method, path, init, 429);
      assert.equal((answer.body as { error: string }).error, 'too_many_requests');
    };
    await limited('POST', '/register', json(metadata), 201);
    await limited('POST', '/token', form({ client_id: 'nobody' }), 400);
    await limited('POST', '/revoke', form({ client_id: 'nobody' }), 400);
    await limited('GET', '/authorize', {}, 400);
  });

  test('every OAuth operation of the document was exercised, and a generated client reads the answers', async () => {
    const oauth = operationsOf(doc).filter((operation) =>
      /^\w+ \/(authorize|token|register|revoke|\.well-known\/oauth)/.test(operation),
    );
    assert.equal(oauth.length, 8);
    assert.deepEqual(
      oauth.filter((operation) => !exercised.has(operation)),
      [],
    );
    await assertGeneratedTypesAccept(doc, captured);
  });
});
