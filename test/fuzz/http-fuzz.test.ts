import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { errorStatus } from '../../src/edges/http/errors.js';
import { bearer, makePng } from '../support/api-helpers.js';
import { portOf, type RawResponse, rawRequest } from '../support/raw-http.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import {
  type FuzzContext,
  type FuzzRequest,
  GEMINI_ROUTES,
  OAUTH_ROUTES,
  OPENAI_ROUTES,
  OTHER_ROUTES,
  V1_ROUTES,
} from './fuzz-context.js';
import { googleProblem, isGeminiPath } from './google-shape.js';
import { rawRequestArbitrary, requestArbitrary } from './http-arbitraries.js';

// Property-based fuzzing of every HTTP route over real sockets: random methods, paths and path
// parameters, query strings, headers, content types and bodies. Each answer must be below 500, and
// every 4xx must be `{ error: { type, message } }` with a type of the closed list and its status.
// `npm test` runs FUZZ_RUNS (default 1500) requests and a quarter as many raw-byte requests;
// `npm run soak` runs 20,000. FUZZ_SEED replays a run (the summary line prints its seed).
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const RAW_RUNS = Math.max(50, Math.round(RUNS / 4));
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Not a timing assertion: a request unanswered this long is reported as a held socket. */
const HELD_SOCKET_MS = Number(process.env.FUZZ_HELD_MS ?? 20_000);

// Upload temp files go to os.tmpdir(): this process's own folder, to check that none is left.
process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'atelier-fuzz-tmp-'));

/** Whether a path's percent-encoding is valid. */
const decodable = (text: string) => {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
};

/** What is wrong with an answer (a short kind to group by, and the detail), or undefined. */
function contractProblem(
  method: string,
  response: RawResponse,
  accept = '',
  url = '',
  /** Raw bytes: Node's parser may refuse them before any route (those answers keep the spec's shape). */
  raw = false,
): { kind: string; detail: string } | undefined {
  const { status } = response;
  const body = response.body.slice(0, 200);
  if (!Number.isInteger(status) || status < 100) return { kind: 'no valid status line', detail: body };
  // The OpenAI-compatible routes wait for their images; with the engine off nothing renders, so a
  // valid request ends at the wait ceiling with its documented 504 (an answer, not a failure).
  // A route with a parameter matches any one segment; a path the router cannot decode (`%zz`) is
  // answered before any route, in the spec's shape.
  const request = `${method} ${url.split('?')[0]}`;
  const openAiRoute =
    decodable(request) &&
    OPENAI_ROUTES.some((route) => new RegExp(`^${route.replace(/:id\b/g, '[^/]*')}$`).test(request));
  const code = (response.json as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (status === 504 && openAiRoute && code === 'wait_timeout') return undefined;
  // The Gemini-native surface (Google's shape) waits the same way: its ceiling is 504 DEADLINE_EXCEEDED.
  const geminiRoute = decodable(request) && isGeminiPath(url.split('?')[0] ?? '');
  const googleStatus = (response.json as { error?: { status?: unknown } } | undefined)?.error?.status;
  if (status === 504 && geminiRoute && googleStatus === 'DEADLINE_EXCEEDED') return undefined;
  if (status >= 500) {
    const type = (response.json as { error?: { type?: string } } | undefined)?.error?.type;
    return { kind: `${status} ${type ?? ''}`.trim(), detail: body };
  }
  if (status < 400 || method === 'HEAD') return undefined;
  // The website's own "page not found" for a browser at an unknown page (static-site.ts).
  const html = /^text\/html/.test(response.headers['content-type'] ?? '');
  if (status === 404 && html && accept.includes('text/html')) return undefined;
  // /authorize is a browser's: a request it cannot act on is the website's page naming the problem
  // (400), never a redirect before consent (issue 38, src/edges/oauth/authorize-endpoint.ts).
  if (status === 400 && html && request === `${method} /authorize`) return undefined;
  const parsed = response.json as { error?: { type?: unknown; message?: unknown } } | undefined;
  if (!parsed || typeof parsed !== 'object') return { kind: `${status} without a JSON body`, detail: body };
  const specShaped =
    Object.keys((parsed as { error?: object }).error ?? {})
      .sort()
      .join(',') === 'message,type';
  if (openAiRoute && !(raw && specShaped)) return openAiProblem(status, parsed, body);
  // OAuth's routes answer OAuth's shape (RFC 6749 §5.2), as OAuth clients read it.
  const oauthRoute = OAUTH_ROUTES.includes(`${method} ${url.split('?')[0]}`);
  if (oauthRoute && !(raw && specShaped)) return oauthProblem(status, parsed, body);
  if (geminiRoute && !(raw && specShaped)) return googleProblem(status, parsed, body);
  const errorKeys =
    parsed.error && typeof parsed.error === 'object' ? Object.keys(parsed.error).sort().join(',') : '';
  if (Object.keys(parsed).join(',') !== 'error' || errorKeys !== 'message,type') {
    return { kind: `${status} not in the error shape`, detail: body };
  }
  const { type, message } = parsed.error as { type: unknown; message: unknown };
  if (typeof type !== 'string' || !(type in errorStatus))
    return { kind: `unknown type ${String(type)}`, detail: body };
  if (typeof message !== 'string' || message === '')
    return { kind: `empty message for ${type}`, detail: body };
  if (errorStatus[type as keyof typeof errorStatus] !== status) {
    return { kind: `${type} answered with ${status}`, detail: body };
  }
  return undefined;
}

/** On the OAuth routes: `{ error, error_description }` (RFC 6749 §5.2), a code and a text. */
function oauthProblem(
  status: number,
  parsed: object,
  body: string,
): { kind: string; detail: string } | undefined {
  const { error, error_description: description } = parsed as Record<string, unknown>;
  if (typeof error !== 'string' || !/^[a-z_]+$/.test(error))
    return { kind: `${status} not in OAuth's error shape`, detail: body };
  if (typeof description !== 'string' || description === '')
    return { kind: 'empty OAuth error_description', detail: body };
  return undefined;
}

/** On the OpenAI-compatible routes: `{ error: { message, type, param, code } }`, type matching the status. */
function openAiProblem(
  status: number,
  parsed: object,
  body: string,
): { kind: string; detail: string } | undefined {
  const error = (parsed as { error?: Record<string, unknown> }).error;
  if (
    Object.keys(parsed).join(',') !== 'error' ||
    !error ||
    Object.keys(error).sort().join(',') !== 'code,message,param,type'
  )
    return { kind: `${status} not in OpenAI's error shape`, detail: body };
  const expectedType = status === 429 ? 'rate_limit_error' : 'invalid_request_error';
  if (error.type !== expectedType)
    return { kind: `OpenAI type ${String(error.type)} for ${status}`, detail: body };
  if (typeof error.message !== 'string' || error.message === '')
    return { kind: 'empty OpenAI message', detail: body };
  if (typeof error.code !== 'string' || (error.param !== null && typeof error.param !== 'string'))
    return { kind: 'OpenAI code or param of the wrong type', detail: body };
  return undefined;
}

/** Contract breaks seen in a run, grouped by kind and route, with one example each. */
class Findings {
  readonly byKind = new Map<string, { count: number; example: string }>();
  record(kind: string, example: string) {
    const seen = this.byKind.get(kind);
    if (seen) seen.count++;
    else this.byKind.set(kind, { count: 1, example });
  }
  get total() {
    return [...this.byKind.values()].reduce((sum, { count }) => sum + count, 0);
  }
  report(seed: number) {
    const lines = [...this.byKind].map(
      ([kind, { count, example }]) => `  ${count} × ${kind}\n      e.g. ${example}`,
    );
    return `${this.total} requests broke the contract (FUZZ_SEED=${seed} replays):\n${lines.join('\n')}`;
  }
}

/** The route a URL addresses, for grouping: ids and long segments folded. */
function routeOf(method: string, url: string): string {
  const path = url.split('?')[0] ?? '';
  const segments = path.split('/').map((segment, i) => (i > 3 || segment.length > 24 ? ':x' : segment));
  return `${method} ${segments.slice(0, 6).join('/')}`;
}

/** A request as bytes on the wire: the connection closes after the answer. */
function toBytes(request: FuzzRequest): Buffer {
  const lines = [`${request.method} ${request.url} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  if (request.body !== undefined) lines.push(`Content-Length: ${request.body.length}`);
  lines.push('Connection: close');
  return Buffer.concat([
    Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
    request.body ?? Buffer.alloc(0),
  ]);
}

/**
 * Sends `bytes`, reads the first answer (its head only when below 400: streams never end);
 * 'closed' when the server closed the connection without one, 'held' when it kept it unanswered.
 */
async function send(port: number, bytes: Buffer, method: string): Promise<RawResponse | 'closed' | 'held'> {
  const exchange = rawRequest(port, bytes, (status) => status >= 400 && method !== 'HEAD');
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<'held'>((resolve) => {
    timer = setTimeout(() => resolve('held'), HELD_SOCKET_MS);
  });
  try {
    return await Promise.race([exchange.response, held]);
  } catch (error) {
    if (/closed without a response: $/.test((error as Error).message)) return 'closed';
    throw error;
  } finally {
    clearTimeout(timer);
    exchange.socket.destroy();
  }
}

describe('HTTP fuzzing: no input reaches a 5xx or escapes the error shape', {
  timeout: Math.max(120_000, RUNS * 200),
}, () => {
  let t: TestApp;
  let port: number;
  let ctx: FuzzContext;
  let session = '';
  const counts = { requests: 0, raw: 0, closed: 0, broken: 0, byStatus: new Map<number, number>() };

  async function signIn(email: string, password: string) {
    const response = await fetch(`${t.baseUrl}/web/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: t.baseUrl },
      body: JSON.stringify({ email, password }),
    });
    assert.equal(response.status, 200, await response.text());
    session = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  }

  before(async () => {
    // The engine stays off (tasks stay queued: the fuzz is about the HTTP edge, not rendering);
    // a short idle limit ends the requests that declare more body than they send.
    t = await createTestApp({
      listen: true,
      startEngine: false,
      env: { ATELIER_BODY_IDLE_TIMEOUT_MS: '1000', ATELIER_OPENAI_WAIT_MS: '1500' },
    });
    port = portOf(t.baseUrl);
    const { apiKey } = await t.createAccount();
    // The website's account is another one: the fuzzer may rotate its key or sign it out.
    const web = await t.createAccount(undefined, { password: 'fuzz fuzz fuzz' });
    await signIn(web.email, 'fuzz fuzz fuzz');
    const png = await makePng(8, 8);
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: png,
    });
    const generate = await t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'fuzz', count: 2 },
    });
    ctx = {
      baseUrl: t.baseUrl,
      apiKey,
      sessionCookie: () => session,
      taskIds: generate.json().task_ids,
      fileUrls: [upload.json().url],
      png,
    };
    ctx.signIn = () => signIn(web.email, 'fuzz fuzz fuzz');
  });
  after(async () => {
    console.log(
      `fuzz (seed ${SEED}): ${counts.requests} requests, ${counts.raw} raw (${counts.closed} closed unanswered), ${counts.broken} broke the contract; statuses ${JSON.stringify(Object.fromEntries([...counts.byStatus].sort()))}`,
    );
    await t.close();
  });

  test('the fuzzer knows every documented route', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    // The document lists /api/v1 and the public routes beside it (/healthz, /files/{key}, OAuth's).
    const known = new Set(
      [
        ...V1_ROUTES.map((route) => `/api/v1${route.split(' ')[1]}`),
        ...[...OPENAI_ROUTES, ...GEMINI_ROUTES, ...OAUTH_ROUTES, ...OTHER_ROUTES].map(
          (route) => route.split(' ')[1],
        ),
      ].map((path) => path?.replace(/:id\b/g, '{}')),
    );
    for (const path of Object.keys(document.paths)) {
      assert.ok(known.has(path.replace(/\{[^}]+\}/g, '{}')), `${path} is not fuzzed`);
    }
    assert.ok(OTHER_ROUTES.includes('GET /healthz'));
  });

  test(`${RUNS} random requests over every route`, async () => {
    const findings = new Findings();
    await fc.assert(
      fc.asyncProperty(requestArbitrary(ctx), async (request) => {
        const answer = await send(port, toBytes(request), request.method);
        counts.requests++;
        const sent = request.body
          ? ` [${request.headers['content-type'] ?? 'no type'}] ${JSON.stringify(request.body.toString('latin1').slice(0, 80))}`
          : '';
        const example = `${request.method} ${request.url.slice(0, 160)}${sent}`;
        if (answer === 'closed' || answer === 'held') {
          findings.record(`${answer} unanswered ← ${routeOf(request.method, request.url)}`, example);
          return;
        }
        counts.byStatus.set(answer.status, (counts.byStatus.get(answer.status) ?? 0) + 1);
        const problem = contractProblem(request.method, answer, request.headers.accept, request.url);
        if (problem)
          findings.record(
            `${problem.kind} ← ${routeOf(request.method, request.url)}`,
            `${example} → ${problem.detail}`,
          );
        // A signed-out website session is signed in again, so later requests get past it.
        if (request.url.startsWith('/web/api/session') && answer.status === 204) await ctx.signIn?.();
      }),
      { numRuns: RUNS, seed: SEED },
    );
    counts.broken += findings.total;
    assert.equal(findings.total, 0, findings.report(SEED));
  });

  test(`${RAW_RUNS} requests of raw bytes for Node's HTTP parser`, async () => {
    const findings = new Findings();
    await fc.assert(
      fc.asyncProperty(rawRequestArbitrary(ctx), async (bytes) => {
        const text = bytes.toString('latin1');
        // The request line's method and target, when it has them (the OpenAI routes answer in their shape).
        const [method = '', target = ''] = text.split('\r\n', 1)[0]?.split(' ') ?? [];
        const answer = await send(port, bytes, method);
        counts.raw++;
        // Unanswered is allowed here: e.g. a request still incomplete when the idle limit ends it.
        if (answer === 'held') {
          findings.record('raw: held the socket unanswered', JSON.stringify(text.slice(0, 160)));
          return;
        }
        if (answer === 'closed') {
          counts.closed++;
          return;
        }
        counts.byStatus.set(answer.status, (counts.byStatus.get(answer.status) ?? 0) + 1);
        const problem = contractProblem(method, answer, '', target, true);
        if (problem)
          findings.record(
            `raw: ${problem.kind}`,
            `${JSON.stringify(text.slice(0, 160))} → ${problem.detail}`,
          );
      }),
      { numRuns: RAW_RUNS, seed: SEED },
    );
    counts.broken += findings.total;
    assert.equal(findings.total, 0, findings.report(SEED));
  });

  test('afterwards the app is healthy, serves its callers, and left no upload temp file', async () => {
    assert.equal((await fetch(`${t.baseUrl}/healthz`)).status, 200);
    const status = await fetch(`${t.baseUrl}/api/v1/user/status`, { headers: bearer(ctx.apiKey) });
    assert.equal(status.status, 200);
    const task = await fetch(`${t.baseUrl}/api/v1/tasks/${ctx.taskIds[0]}`, { headers: bearer(ctx.apiKey) });
    assert.equal(task.status, 200);
    assert.deepEqual(
      readdirSync(tmpdir()).filter((name) => name.startsWith('atelier-upload-')),
      [],
    );
  });
});
