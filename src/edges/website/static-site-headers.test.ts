import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { installErrorHandling } from '../http/error-handler.js';
import { staticSite } from './static-site.js';

const PAGE_HEADERS = [
  'content-security-policy',
  'x-frame-options',
  'referrer-policy',
  'x-content-type-options',
];

// Issue 25, item 8: /index.html used to come from the static branch without the pages' CSP and
// X-Frame-Options, cached publicly for a day, so a same-site page could frame the signed-in app.
describe('static site: every HTML answer is a page, every file is nosniff', () => {
  let dir: string;
  let app: FastifyInstance;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-web-headers-'));
    await mkdir(join(dir, 'static'), { recursive: true });
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>Atelier</title><div id="root"></div>');
    await writeFile(join(dir, 'static', 'index-abc123.js'), 'console.log(1)');
    await writeFile(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    app = Fastify();
    installErrorHandling(app);
    await app.register(staticSite, { distDir: dir, publicBaseUrl: 'https://atelier.example' });
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('GET /index.html carries the same security headers as /, and is not cached publicly', async () => {
    const root = await app.inject({ method: 'GET', url: '/' });
    const index = await app.inject({ method: 'GET', url: '/index.html' });
    assert.equal(index.statusCode, 200);
    assert.match(index.body, /id="root"/);
    for (const name of PAGE_HEADERS) {
      assert.ok(root.headers[name], `/ has ${name}`);
      assert.equal(index.headers[name], root.headers[name], name);
    }
    assert.match(String(index.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(index.headers['x-frame-options'], 'DENY');
    assert.equal(index.headers['cache-control'], 'no-cache');
  });

  test('a JS bundle and a root file carry nosniff', async () => {
    for (const url of ['/static/index-abc123.js', '/favicon.svg']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
    }
  });
});
