// The baseline: a bare node:http server in its own process that answers every request with the
// bytes it was given (the same JSON the route under test answers), keep-alive, no framework.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveIpc } from './ipc-child.js';

let body = Buffer.from('{}');
let contentType = 'application/json; charset=utf-8';
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
  response.end(body);
});
server.keepAliveTimeout = 72_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

serveIpc(async (message) => {
  if (typeof message.body === 'string') body = Buffer.from(message.body, 'base64');
  if (typeof message.contentType === 'string') contentType = message.contentType;
  return { baseUrl: `http://127.0.0.1:${port}` };
});
