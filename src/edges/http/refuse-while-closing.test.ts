import assert from 'node:assert/strict';
import { type AddressInfo, connect } from 'node:net';
import { test } from 'node:test';
import Fastify from 'fastify';
import { refuseWhileClosing } from './refuse-while-closing.js';

test('a request stuck past the drain deadline is logged and cut, so close finishes', async () => {
  const lines: string[] = [];
  const app = Fastify({
    return503OnClosing: false,
    logger: { level: 'warn', stream: { write: (line: string) => lines.push(line) } },
  });
  refuseWhileClosing(app, 200);
  app.get('/stuck', () => new Promise(() => {}));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const received = new Promise((resolve) => app.server.once('request', resolve));
  const stuck = fetch(`http://127.0.0.1:${port}/stuck`).then(
    (response) => response.status,
    (error: Error) => error.name,
  );
  await received;
  await app.close(); // would wait forever without the deadline
  assert.equal(await stuck, 'TypeError', 'the stuck request lost its connection');
  const warning = lines.map((line) => JSON.parse(line)).find((entry) => entry.inFlight);
  assert.deepEqual(warning?.inFlight, ['GET /stuck']);
  assert.equal(warning?.count, 1);
});

test('a request that finishes in time is answered, with Connection: close', async () => {
  const app = Fastify({ return503OnClosing: false });
  refuseWhileClosing(app, 10_000);
  let release = () => {};
  const closingBegan = new Promise<void>((began) => app.addHook('preClose', async () => began()));
  const started = new Promise<void>((handlerStarted) => {
    app.get(
      '/slow',
      () =>
        new Promise((resolve) => {
          release = () => resolve({ ok: true });
          handlerStarted();
        }),
    );
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const slow = fetch(`http://127.0.0.1:${port}/slow`);
  await started;
  const closed = app.close();
  await closingBegan; // the response leaves once the server is closing
  release();
  const response = await slow;
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('connection'), 'close');
  await closed;
});

test('a connection that never sent a request does not hold the close until the drain deadline', async () => {
  const lines: string[] = [];
  const app = Fastify({
    return503OnClosing: false,
    logger: { level: 'warn', stream: { write: (line: string) => lines.push(line) } },
  });
  refuseWhileClosing(app, 30_000);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const accepted = new Promise((resolve) => app.server.once('connection', resolve));
  // What a client's spare connection is: connected, nothing sent.
  const spare = connect(port, '127.0.0.1');
  const spareClosed = new Promise((resolve) => spare.once('close', resolve));
  await accepted;
  await app.close(); // waited the whole drain deadline (30 s) before the fix
  await spareClosed;
  assert.deepEqual(
    lines.map((line) => JSON.parse(line).msg),
    [],
    'closed without reaching the drain deadline',
  );
});
