// The baseline: a bare node:http server in its own process that answers every request with the
// bytes it was given (the same JSON the route under test answers), keep-alive, no framework.
// Under /spin/<µs>/ it first busies its thread for that long: the calibration row (C1) measures
// what so much work per request costs next to the bare answer, on the machine of the run.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveIpc } from './ipc-child.js';

let body = Buffer.from('{}');
let contentType = 'application/json; charset=utf-8';
const SPIN = /^\/spin\/(\d+)\//;
const server = createServer((request, response) => {
  const spin = request.url?.startsWith('/spin/') ? Number(SPIN.exec(request.url)?.[1] ?? 0) : 0;
  if (spin > 0) {
    const until = performance.now() + spin / 1000;
    while (performance.now() < until);
  }
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
