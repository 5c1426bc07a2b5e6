import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { usageReportSchema } from '../../base/contract/usage.js';
import {
  AtelierApiError,
  AtelierConnectionError,
  createAtelierClient,
  normalizeBaseUrl,
} from './atelier-client.js';
import { detectImageMediaType } from './image-media-type.js';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

type Responder = (req: Recorded, res: ServerResponse) => void;

/** A loopback HTTP stub: each test sets `respond` and reads `last`. */
function startStub() {
  const state: { respond: Responder; last: Recorded | undefined } = {
    respond: (_req, res) => res.writeHead(500).end(),
    last: undefined,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      state.last = recorded;
      state.respond(recorded, res);
    });
  });
  return {
    state,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

describe('createAtelierClient', () => {
  const stub = startStub();
  let baseUrl = '';
  before(async () => {
    baseUrl = await stub.listen();
  });
  after(() => stub.close());

  it('sends generate as JSON with the bearer key and returns the parsed response', async () => {
    stub.state.respond = (_req, res) => json(res, 200, { task_ids: ['tsk_1', 'tsk_2'], email: 'a@b.c' });
    const client = createAtelierClient({ baseUrl, apiKey: 'key-123' });
    const result = await client.generate({ prompt: 'a cat', count: 2 });
    assert.deepEqual(result, { task_ids: ['tsk_1', 'tsk_2'], email: 'a@b.c' });
    const req = stub.state.last;
    assert.equal(req?.method, 'POST');
    assert.equal(req?.url, '/api/v1/generate');
    assert.equal(req?.headers.authorization, 'Bearer key-123');
    assert.equal(req?.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(req?.body.toString() ?? ''), { prompt: 'a cat', count: 2 });
  });

  it('posts an action on the id (encoded) with its body, answered like generate', async () => {
    stub.state.respond = (_req, res) => json(res, 200, { task_ids: ['tsk_2'], email: 'a@b.c' });
    const client = createAtelierClient({ baseUrl, apiKey: 'key-123' });
    const result = await client.act('tsk_a/b', { action: 'upscale', scale: 4, seed: 9 });
    assert.deepEqual(result, { task_ids: ['tsk_2'], email: 'a@b.c' });
    const req = stub.state.last;
    assert.equal(req?.method, 'POST');
    assert.equal(req?.url, '/api/v1/generations/tsk_a%2Fb/actions');
    assert.equal(req?.headers.authorization, 'Bearer key-123');
    assert.deepEqual(JSON.parse(req?.body.toString() ?? ''), { action: 'upscale', scale: 4, seed: 9 });
  });

  it('keeps a path prefix of the base URL and drops its trailing slash', async () => {
    stub.state.respond = (_req, res) => json(res, 200, { email: 'a@b.c', tier: 'pro', has_key: true });
    const client = createAtelierClient({ baseUrl: `${baseUrl}/atelier/`, apiKey: 'k' });
    await client.userStatus();
    assert.equal(stub.state.last?.url, '/atelier/api/v1/user/status');
  });

  it('asks for usage over a range of UTC days and returns the report', async () => {
    const [report] = (usageReportSchema.meta()?.examples ?? []) as unknown[];
    assert.ok(report, 'the contract has an example report');
    stub.state.respond = (_req, res) => json(res, 200, report);
    const client = createAtelierClient({ baseUrl, apiKey: 'k' });
    assert.deepEqual(await client.userUsage({ from: '2026-11-21', to: '2026-11-22' }), report);
    assert.equal(stub.state.last?.url, '/api/v1/user/usage?from=2026-11-21&to=2026-11-22');
    await client.userUsage();
    assert.equal(stub.state.last?.url, '/api/v1/user/usage');
  });

  it('passes extra fields of a task record through', async () => {
    const record = {
      task_id: 'tsk_1',
      status: 'completed',
      progress: 100,
      imageUrl: 'http://x/files/a.png',
      width: 64,
    };
    stub.state.respond = (_req, res) => json(res, 200, record);
    const client = createAtelierClient({ baseUrl, apiKey: 'k' });
    assert.deepEqual(await client.getTask('tsk_1'), record);
    assert.equal(stub.state.last?.url, '/api/v1/tasks/tsk_1');
  });

  it('encodes each batch id but keeps the separating commas literal', async () => {
    stub.state.respond = (_req, res) => json(res, 200, { tasks: [] });
    const client = createAtelierClient({ baseUrl, apiKey: 'k' });
    await client.getTasks(['tsk_b', 'tsk a', 'tsk_b']);
    assert.equal(stub.state.last?.url, '/api/v1/tasks?ids=tsk_b,tsk%20a,tsk_b');
  });

  it('sends only the history parameters given', async () => {
    const page = { items: [], total: 0, page: 1, limit: 20, total_pages: 0 };
    stub.state.respond = (_req, res) => json(res, 200, page);
    const client = createAtelierClient({ baseUrl, apiKey: 'k' });
    await client.history();
    assert.equal(stub.state.last?.url, '/api/v1/history');
    await client.history({ page: 2, limit: 5 });
    assert.equal(stub.state.last?.url, '/api/v1/history?page=2&limit=5');
  });

  it('uploads by source_url as JSON and by bytes as a raw body with their media type', async () => {
    const result = { url: 'http://x/files/u.png', filename: 'u.png', content_type: 'image/png', bytes: 4 };
    stub.state.respond = (_req, res) => json(res, 200, result);
    const client = createAtelierClient({ baseUrl, apiKey: 'k' });

    assert.deepEqual(await client.upload({ source_url: 'https://example.com/a.png' }), result);
    assert.deepEqual(JSON.parse(stub.state.last?.body.toString() ?? ''), {
      source_url: 'https://example.com/a.png',
    });

    const bytes = new Uint8Array([1, 2, 3, 4]);
    await client.upload({ bytes, contentType: 'image/png' });
    assert.equal(stub.state.last?.url, '/api/v1/upload');
    assert.equal(stub.state.last?.headers['content-type'], 'image/png');
    assert.deepEqual([...(stub.state.last?.body ?? [])], [1, 2, 3, 4]);
  });

  it('maps the API error shape to AtelierApiError with status, type and message', async () => {
    stub.state.respond = (_req, res) =>
      json(res, 400, {
        error: { type: 'invalid_request', message: 'model flash does not support mode fusion' },
      });
    const client = createAtelierClient({ baseUrl, apiKey: 'k' });
    await assert.rejects(client.generate({ prompt: 'x', model: 'flash', mode: 'fusion' }), (error) => {
      assert.ok(error instanceof AtelierApiError);
      assert.equal(error.status, 400);
      assert.equal(error.type, 'invalid_request');
      assert.equal(error.message, 'model flash does not support mode fusion');
      return true;
    });
  });

  it('reports a non-Atelier error body as unexpected_response with the status', async () => {
    stub.state.respond = (_req, res) =>
      res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>');
    const client = createAtelierClient({ baseUrl, apiKey: 'k' });
    await assert.rejects(client.userStatus(), (error) => {
      assert.ok(error instanceof AtelierApiError);
      assert.equal(error.status, 502);
      assert.equal(error.type, 'unexpected_response');
      assert.match(error.message, /Bad Gateway/);
      return true;
    });
  });

  it('refuses a success body that does not match the documented shape', async () => {
    stub.state.respond = (_req, res) => json(res, 200, { task_id: 'tsk_1', status: 'exploded', progress: 1 });
    const client = createAtelierClient({ baseUrl, apiKey: 'k' });
    await assert.rejects(client.getTask('tsk_1'), (error) => {
      assert.ok(error instanceof AtelierApiError);
      assert.equal(error.type, 'unexpected_response');
      assert.match(error.message, /status/);
      return true;
    });
  });

  it('rethrows the reason when the caller aborts', async () => {
    stub.state.respond = () => {
      // Never answers: the caller's abort must end the request.
    };
    const client = createAtelierClient({ baseUrl, apiKey: 'k' });
    const controller = new AbortController();
    const pending = client.userStatus({ signal: controller.signal });
    controller.abort(new Error('stop now'));
    await assert.rejects(pending, /stop now/);
  });

  it('turns a refused connection into AtelierConnectionError naming the base URL', async () => {
    const dead = startStub();
    const deadUrl = await dead.listen();
    await dead.close();
    const client = createAtelierClient({ baseUrl: deadUrl, apiKey: 'k' });
    await assert.rejects(client.userStatus(), (error) => {
      assert.ok(error instanceof AtelierConnectionError);
      assert.ok(error.message.includes(deadUrl));
      assert.match(error.message, /ECONNREFUSED/);
      return true;
    });
  });

  it('never puts the API key in error messages', async () => {
    stub.state.respond = (_req, res) => res.writeHead(500).end('oops');
    const client = createAtelierClient({ baseUrl, apiKey: 'secret-key-value' });
    await assert.rejects(client.userStatus(), (error) => {
      assert.ok(!(error as Error).message.includes('secret-key-value'));
      return true;
    });
  });
});

describe('normalizeBaseUrl', () => {
  it('accepts http(s) and strips trailing slashes', () => {
    assert.equal(normalizeBaseUrl('http://localhost:8080/'), 'http://localhost:8080');
    assert.equal(normalizeBaseUrl('https://example.com/a/b//'), 'https://example.com/a/b');
  });

  it('refuses other schemes and garbage with a readable message', () => {
    assert.throws(() => normalizeBaseUrl('ftp://example.com'), /http or https/);
    assert.throws(() => normalizeBaseUrl('localhost:8080'), /http or https|not a valid URL/);
    assert.throws(() => normalizeBaseUrl('not a url'), /not a valid URL/);
  });
});

describe('detectImageMediaType', () => {
  it('reads png, jpeg, webp, gif and bmp by their magic bytes', () => {
    assert.equal(detectImageMediaType(Buffer.from('89504e470d0a1a0a0000', 'hex')), 'image/png');
    assert.equal(detectImageMediaType(Buffer.from('ffd8ffe000104a464946', 'hex')), 'image/jpeg');
    assert.equal(detectImageMediaType(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1')), 'image/webp');
    assert.equal(detectImageMediaType(Buffer.from('GIF89a\x01\x00', 'latin1')), 'image/gif');
    // "BM", the file header, then a DIB header size the server knows (40: BITMAPINFOHEADER).
    const bmp = Buffer.concat([
      Buffer.from('BM'),
      Buffer.alloc(12),
      Buffer.from([40, 0, 0, 0]),
      Buffer.alloc(36),
    ]);
    assert.equal(detectImageMediaType(bmp), 'image/bmp');
    assert.equal(detectImageMediaType(Buffer.from('BMW owners manual, chapter 1: the engine')), undefined);
  });

  it('answers undefined for anything else, whatever it claims to be', () => {
    assert.equal(detectImageMediaType(Buffer.from('%PDF-1.7')), undefined);
    assert.equal(detectImageMediaType(Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt ', 'latin1')), undefined);
    assert.equal(detectImageMediaType(new Uint8Array()), undefined);
  });
});
