import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AUTHORIZE_PROBLEM_META, type AuthorizeProblemInfo } from '../../base/contract/oauth.js';
import { ApiError } from '../http/errors.js';

/** Path prefixes that belong to the service, never to the website: unknown ones stay JSON 404s. */
const SERVICE_PREFIXES = ['/api/', '/v1/', '/files/', '/web/api/'];
const SERVICE_ROOTS = ['/api', '/v1', '/files', '/web/api', '/healthz'];
/** The website's page routes (web/src/features/shell/app.tsx): the app is served with 200 at these. */
export const PAGE_ROUTES = new Set([
  '/',
  '/create',
  '/works',
  '/library',
  '/account',
  '/sign-in',
  '/oauth/consent',
  '/admin',
  '/admin/usage',
  '/admin/policies',
  '/admin/upstreams',
  '/admin/queue',
  '/admin/tasks',
  '/admin/audit',
  '/admin/alerts',
  '/admin/catalog',
]);
/** Page routes with a part of their own (in the console: an account's page, a task's life). */
const PAGE_PATTERNS = [/^\/admin\/accounts\/[^/]+$/, /^\/admin\/tasks\/[^/]+$/];

/** Whether `path` is one of the website's pages (a trailing slash is the same page). */
export function isPageRoute(path: string): boolean {
  const page = path.replace(/\/+$/, '') || '/';
  return PAGE_ROUTES.has(page) || PAGE_PATTERNS.some((pattern) => pattern.test(page));
}

/** The built website's directory: `web/dist` of the package this module belongs to (from src/ or dist/src/). */
export function defaultWebDistDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'web', 'dist');
    dir = dirname(dir);
  }
  return resolve('web', 'dist');
}

/**
 * Security headers of the website's pages. No inline script or style is ever needed (Vite emits
 * files), so the policy forbids both; images may also come from the public base URL, which is
 * where result and upload URLs point.
 */
function pageSecurityHeaders(reply: FastifyReply, publicBaseUrl: string): void {
  const filesOrigin = new URL(publicBaseUrl).origin;
  reply
    .header(
      'content-security-policy',
      [
        "default-src 'self'",
        `img-src 'self' data: blob: ${filesOrigin}`,
        "style-src 'self'",
        "script-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
      ].join('; '),
    )
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin');
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The website's page (status 400) stating a problem the server found — an OAuth authorization
 * request that cannot go on — as data in a meta element the app shows (no inline script: the CSP
 * forbids it). The problem and the destination are text, never markup.
 */
export function problemPageSender(distDir: string, publicBaseUrl: string) {
  return async (reply: FastifyReply, problem: AuthorizeProblemInfo) => {
    const file = join(distDir, 'index.html');
    const html = existsSync(file) ? await readFile(file, 'utf8') : NOT_BUILT_PAGE;
    const meta = `<meta name="${AUTHORIZE_PROBLEM_META}" content="${escapeAttribute(JSON.stringify(problem))}">`;
    pageSecurityHeaders(reply, publicBaseUrl);
    return reply
      .code(400)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(html.replace('</head>', `${meta}</head>`));
  };
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Atelier</title></head>
<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5">
<h1>Atelier is running</h1>
<p>The website has not been built yet. Run <code>npm run build</code> (or <code>npm start</code>, which builds it) and reload.</p>
<p>The API is available at <code>/api/v1</code>.</p>
</body></html>
`;

/**
 * Serves the React app from `web/dist`: hashed bundles under /static/ (cached for a year), other
 * root files as they are, and index.html for the page routes (the app routes on the client).
 * Unknown paths under the service's own prefixes keep the JSON 404 of the API. If the site is not
 * built, the server still starts and page routes explain how to build it.
 */
export async function staticSite(
  app: FastifyInstance,
  { distDir, publicBaseUrl }: { distDir: string; publicBaseUrl: string },
) {
  // serve: false — only reply.sendFile; routing is ours, so the fallback below decides what a miss means.
  await app.register(fastifyStatic, { root: distDir, serve: false });
  const notFound = (url: string) => new ApiError('not_found', `No route for GET ${url.split('?')[0]}`);

  // Every answer of this branch, bundles and root files included, is read as the type it is sent as.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
  });

  /** An HTML file with the pages' headers: CSP and framing refused, revalidated, never cached publicly. */
  async function sendHtml(reply: FastifyReply, file: string, status = 200) {
    reply.code(status);
    pageSecurityHeaders(reply, publicBaseUrl);
    reply.header('cache-control', 'no-cache');
    if (!existsSync(join(distDir, file))) return reply.type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    return reply.sendFile(file, { cacheControl: false });
  }
  const sendPage = (reply: FastifyReply, status = 200) => sendHtml(reply, 'index.html', status);

  // Pages and bundles, not API: kept out of the OpenAPI document.
  const page = { schema: { hide: true } };
  app.get('/', page, async (_request, reply) => sendPage(reply));

  app.get<{ Params: { '*': string } }>('/*', page, async (request, reply) => {
    const path = `/${request.params['*']}`;
    if (path.split('/').includes('..')) throw notFound(request.url);
    if (SERVICE_ROOTS.includes(path) || SERVICE_PREFIXES.some((prefix) => path.startsWith(prefix))) {
      throw notFound(request.url);
    }
    if (path.startsWith('/static/')) {
      if (!existsSync(join(distDir, path))) throw notFound(request.url);
      // Bundle names carry a content hash: a name never changes meaning.
      return reply.sendFile(path.slice(1), { maxAge: 365 * 24 * 60 * 60 * 1000, immutable: true });
    }
    const last = path.slice(path.lastIndexOf('/') + 1);
    if (last.includes('.')) {
      // A file (favicon, robots.txt …): serve it if the build has it; never answer a file with the page.
      if (!existsSync(join(distDir, path))) throw notFound(request.url);
      // /index.html (or any page) is a page, with the pages' headers, wherever it is asked for.
      if (/\.html?$/i.test(last)) return sendHtml(reply, path.slice(1));
      return reply.sendFile(path.slice(1), { maxAge: 24 * 60 * 60 * 1000 });
    }
    if (isPageRoute(path)) return sendPage(reply);
    // Unknown paths are 404 either way: a browser gets the app (which shows "page not found"),
    // any other client the API's JSON error.
    if (String(request.headers.accept ?? '').includes('text/html')) return sendPage(reply, 404);
    throw notFound(request.url);
  });
}
