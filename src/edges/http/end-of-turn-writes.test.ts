import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import { test } from 'node:test';
import Fastify, { type FastifyReply } from 'fastify';
import { sendAtEndOfTurn } from './end-of-turn-writes.js';

/** An app whose routes answer through `sendAtEndOfTurn`, recording what each reply looked like right after. */
async function heldAnswersApp() {
  const app = Fastify();
  const afterCall: Array<{ sent: boolean; headersSent: boolean }> = [];
  const finished: string[] = [];
  const look = (reply: FastifyReply) =>
    afterCall.push({ sent: reply.sent, headersSent: reply.raw.headersSent });
  app.addHook('onResponse', (request, _reply, done) => {
    finished.push(request.url);
    done();
  });
  app.get('/sync/:n', (request, reply) => {
    look(sendAtEndOfTurn(reply, `sync ${(request.params as { n: string }).n}`));
  });
  app.get('/async/:n', async (request, reply) => {
    await Promise.resolve();
    const held = sendAtEndOfTurn(reply, `async ${(request.params as { n: string }).n}`);
    look(held);
    return held;
  });
  app.get('/gone', (request, reply) => {
    request.raw.socket.destroy();
    sendAtEndOfTurn(reply, 'nobody reads this');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, afterCall, finished, port: (app.server.address() as AddressInfo).port };
}

/** Sends raw HTTP/1.1 bytes on one connection; resolves with everything received once `answers` bodies arrived. */
async function exchange(port: number, requests: string, answers: RegExp[]): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.write(requests);
  try {
    while (!answers.every((answer) => answer.test(text))) await once(socket, 'data');
    return text;
  } finally {
    socket.destroy();
  }
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

test('an answer is held until the end of the turn, then sent whole, from sync and async handlers', async () => {
  const { app, afterCall, finished, port } = await heldAnswersApp();
  try {
    const text = await exchange(port, get('/sync/1'), [/sync 1$/]);
    assert.match(text, /^HTTP\/1\.1 200 OK/);
    assert.match(text, /content-length: 6/i);
    const again = await exchange(port, get('/async/2'), [/async 2$/]);
    assert.match(again, /^HTTP\/1\.1 200 OK/);
    assert.deepEqual(afterCall, [
      { sent: false, headersSent: false },
      { sent: false, headersSent: false },
    ]);
    // The response lifecycle runs as usual once sent (onResponse: the access line, the metrics).
    while (finished.length < 2) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(finished, ['/sync/1', '/async/2']);
  } finally {
    await app.close();
  }
});

test('pipelined requests on one connection are answered in order, whichever turn they are sent in', async () => {
  const { app, port } = await heldAnswersApp();
  try {
    const text = await exchange(port, get('/async/a') + get('/sync/b') + get('/sync/c'), [
      /async a/,
      /sync b/,
      /sync c/,
    ]);
    const order = ['async a', 'sync b', 'sync c'].map((body) => text.indexOf(body));
    assert.deepEqual(
      [...order].sort((x, y) => x - y),
      order,
      text,
    );
  } finally {
    await app.close();
  }
});

test('an answer held for a client that went away is dropped, and the server goes on', async () => {
  const { app, port } = await heldAnswersApp();
  try {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(get('/gone'));
    await once(socket, 'close');
    assert.match(await exchange(port, get('/sync/after'), [/sync after$/]), /^HTTP\/1\.1 200 OK/);
  } finally {
    await app.close();
  }
});

test('an answer that fails to send becomes an error answer, and the others of its turn still leave', async () => {
  const app = Fastify();
  app.get('/bad', (_request, reply) => {
    // Node refuses to write this header: the held send throws (Fastify rethrows writeHead's error).
    reply.header('x-broken', 'a\nb');
    sendAtEndOfTurn(reply, 'never');
  });
  app.get('/good', (_request, reply) => {
    sendAtEndOfTurn(reply, 'fine');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const port = (app.server.address() as AddressInfo).port;
    const [bad, good] = await Promise.all([
      exchange(port, get('/bad'), [/ERR_INVALID_CHAR/]),
      exchange(port, get('/good'), [/fine$/]),
    ]);
    assert.match(bad, /^HTTP\/1\.1 500/);
    assert.doesNotMatch(bad, /never/);
    assert.match(good, /^HTTP\/1\.1 200 OK/);
    assert.match(await exchange(port, get('/good'), [/fine$/]), /^HTTP\/1\.1 200 OK/, 'the server goes on');
  } finally {
    await app.close();
  }
});
