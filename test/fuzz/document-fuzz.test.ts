import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { OpenAPIV3_1 } from 'openapi-types';
import { makeOperator } from '../admin/admin-support.js';
import { bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { signedInCookie } from '../support/website-session.js';
import { type Answer, fuzzDocument, type GeneratedRequest, type Operation } from './document-oracle.js';

// Issue 49: the OpenAPI document fuzzed against the running app (document-oracle.ts), so an
// operation added later is covered without being named: parameters and JSON or form bodies the
// document allows, with the credentials each operation's security names (an account's key, its
// website session, an operator's key on the console's API, none on OAuth's routes). Every answered
// status must be documented; no schema-valid request may be refused for a reason the schema could
// state. document-oracle.test.ts shows the oracle fails on a loosened schema.
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS_PER_OPERATION = Number(process.env.DOC_FUZZ_RUNS ?? 3);

/** Streams never end (event streams, streamed generation); signing out ends the session used here. */
function neverEnds(path: string, _method: string, operation: Operation): boolean {
  const content = Object.keys((operation.responses?.['200'] as OpenAPIV3_1.ResponseObject)?.content ?? {});
  return (
    content.includes('text/event-stream') ||
    path.includes(':stream') ||
    path.endsWith('/session') ||
    path.endsWith('/sessions')
  );
}

describe('fuzzing the OpenAPI document against the running app', { timeout: 300_000 }, () => {
  let t: TestApp;
  let doc: OpenAPIV3_1.Document;
  const credentials: Record<'key' | 'operator' | 'session', Record<string, string>> = {
    key: {},
    operator: {},
    session: {},
  };

  before(async () => {
    // The engine stays off: the OpenAI- and Gemini-compatible routes end at a short wait ceiling.
    // Listening: OAuth's routes answer real connections only.
    t = await createTestApp({ startEngine: false, listen: true, env: { ATELIER_OPENAI_WAIT_MS: '300' } });
    const account = await t.createAccount(undefined, { password: 'document fuzz' });
    const operator = await t.createAccount(undefined, { tier: 'pro' });
    await makeOperator(t, operator.id);
    const origin = t.baseUrl;
    const cookie = await signedInCookie(
      t.app,
      { email: account.email, password: 'document fuzz' },
      { origin },
    );
    credentials.key = { ...bearer(account.apiKey), origin };
    credentials.operator = { ...bearer(operator.apiKey), origin };
    credentials.session = { cookie, origin };
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  });
  after(() => t.close());

  /** The request with the operation's credentials: over HTTP for OAuth's routes, else through inject. */
  async function send(method: string, request: GeneratedRequest, operation: Operation): Promise<Answer> {
    const security = (operation.security ?? doc.security ?? []) as object[];
    const tags = operation.tags ?? [];
    const headers: Record<string, string> =
      security.length === 0
        ? {}
        : tags.includes('admin')
          ? { ...credentials.operator }
          : security.every((s) => 'websiteSession' in s)
            ? { ...credentials.session }
            : { ...credentials.key };
    if (request.body) headers['content-type'] = request.body.contentType;
    if (tags.includes('OAuth')) {
      const response = await fetch(`${t.baseUrl}${request.url}`, {
        method,
        headers,
        body: request.body?.text,
        redirect: 'manual',
      });
      const contentType = response.headers.get('content-type') ?? '';
      return { status: response.status, contentType, text: await response.text() };
    }
    const answer = await t.app.inject({
      method: method as 'GET',
      url: request.url,
      headers,
      ...(request.body ? { payload: request.body.text } : {}),
    });
    return {
      status: answer.statusCode,
      contentType: String(answer.headers['content-type']),
      text: answer.body,
    };
  }

  test('schema-valid requests and bodies: every status documented, no 400 the schema could have prevented', async () => {
    const { findings, sent } = await fuzzDocument({
      doc,
      send,
      seed: SEED,
      runs: RUNS_PER_OPERATION,
      skip: neverEnds,
    });
    assert.ok(sent > 300, `${sent} requests`);
    assert.deepEqual(
      [...findings].map(([kind, example]) => `${kind}\n    e.g. ${example}`),
      [],
    );
  });
});
