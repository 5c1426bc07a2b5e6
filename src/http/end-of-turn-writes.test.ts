import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { writeAtEndOfTurn } from './end-of-turn-writes.js';

test('writes to a socket wait for the end of the turn, then leave, on every socket of the turn', async () => {
  const accepted: Socket[] = [];
  const server = createServer((socket) => accepted.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const clients = [connect(port, '127.0.0.1'), connect(port, '127.0.0.1')];
  await Promise.all(clients.map((client) => once(client, 'connect')));
  while (accepted.length < 2) await new Promise((resolve) => setImmediate(resolve));
  const received = clients.map((client) => {
    let text = '';
    client.setEncoding('utf8');
    client.on('data', (chunk: string) => {
      text += chunk;
    });
    return () => text;
  });
  try {
    for (const [i, socket] of accepted.entries()) {
      writeAtEndOfTurn(socket);
      socket.write(`answer ${i}`);
      // A second answer on the same connection in the same turn (pipelining) keeps the count even.
      writeAtEndOfTurn(socket);
      socket.write('!');
      assert.equal(socket.writableLength, `answer ${i}!`.length, 'held for now');
    }
    await new Promise((resolve) => setImmediate(resolve));
    for (const socket of accepted) {
      assert.equal(socket.writableLength, 0, 'handed to the kernel at the end of the turn');
      assert.equal(socket.writableCorked, 0);
    }
    for (const [i, text] of received.entries()) {
      while (text() !== `answer ${i}!`) await once(clients[i] as Socket, 'data');
    }
  } finally {
    for (const client of clients) client.destroy();
    server.close();
  }
});

test('a destroyed socket, or none, is left alone', () => {
  assert.doesNotThrow(() => writeAtEndOfTurn(null));
});
