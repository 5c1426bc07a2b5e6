// A loopback upstream speaking OpenAI Images that answers every `POST /v1/images/generations` at once
// with the same 1024×1024 PNG (encoded once, at start), in its own process (row S1): the node under
// test then spends no CPU on the upstream's side, and the direct call measures the upstream alone.
import { createServer } from 'node:http';
import sharp from 'sharp';
import { serveIpc } from './ipc-child.js';

const png = await sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#3366cc' } })
  .png()
  .toBuffer();
const answer = (created: number) =>
  JSON.stringify({
    created,
    data: [{ b64_json: png.toString('base64') }],
    output_format: 'png',
    size: '1024x1024',
    usage: {
      input_tokens: 12,
      output_tokens: 1056,
      total_tokens: 1068,
      input_tokens_details: { image_tokens: 0, text_tokens: 12 },
    },
  });
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (request.method !== 'POST' || !request.url?.startsWith('/v1/images/generations')) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no"}}');
      return;
    }
    const body = answer(Math.floor(Date.now() / 1000));
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;
serveIpc(async () => ({ baseUrl: `http://127.0.0.1:${port}`, pngBytes: png.length }));
