import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const SCREENSHOTS = join(ROOT, 'test-results', 'website');

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/** Builds the website with Vite when web/dist is missing or older than any of its sources. */
export function ensureWebsiteBuilt(): void {
  const built = join(ROOT, 'web', 'dist', 'index.html');
  const sources = ['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts'].map((p) => join(ROOT, p));
  if (existsSync(built) && statSync(built).mtimeMs >= Math.max(...sources.map(newestMtime))) return;
  const result = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      'web/vite.config.ts',
      '--logLevel',
      'warn',
    ],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) throw new Error('vite build failed');
}

/** Debian's Chromium, headless (the issue: playwright-core with /usr/bin/chromium); `args` add flags. */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', ...args],
  });
}

/** A loopback HTTP server with fixed routes; returns its origin. */
export async function serve(
  routes: Record<string, { type: string; body: string | Buffer; status?: number }>,
) {
  const server: Server = createServer((request, response) => {
    const route = routes[(request.url ?? '/').split('?')[0] ?? '/'];
    if (!route) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(route.status ?? 200, { 'content-type': route.type }).end(route.body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** Waits until `check` returns a truthy value (polling), or fails with `what`. */
export async function until<T>(what: string, check: () => Promise<T> | T, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/**
 * What {@link settled} runs in the page, as source: a function compiled here would reach the page
 * with the transpiler's helpers in it (tsx names functions with `__name`, which the page lacks).
 */
const SETTLE_IN_PAGE = `(async () => {
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const inView = (element) => {
    const box = element.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight && box.right > 0 && box.left < window.innerWidth;
  };
  await document.fonts.ready;
  for (let round = 0; round < 4; round++) {
    const images = [...document.images].filter((image) => image.currentSrc || image.src);
    const loading = images.filter((image) => !image.complete && (image.loading !== 'lazy' || inView(image)));
    await Promise.all(
      loading.map(
        (image) =>
          new Promise((done) => {
            image.addEventListener('load', done, { once: true });
            image.addEventListener('error', done, { once: true });
          }),
      ),
    );
    await Promise.all(
      images.filter((image) => image.complete && image.naturalWidth > 0).map((image) => image.decode().catch(() => {})),
    );
    // Two frames: what the loads changed (a reveal class, a state update) is styled, its transitions started.
    await frame();
    await frame();
    const running = document
      .getAnimations()
      .filter((a) => a.playState === 'running' && Number.isFinite(a.effect?.getComputedTiming().endTime));
    if (running.length === 0 && loading.length === 0) return;
    await Promise.all(running.map((a) => a.finished.catch(() => {})));
  }
})()`;

/**
 * Resolves once the page is still enough to capture: its fonts loaded, the images in view (and the
 * eager ones) loaded and decoded, and the finite animations and transitions they start (the image
 * reveal, a progress bar's move) finished. Infinite ones (a skeleton's shimmer) are left running.
 * Events, not a clock: a few rounds, as a loaded image may start a reveal that shows another; the
 * rounds are bounded, so a page whose progress keeps moving is captured mid-move, as it is.
 */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(SETTLE_IN_PAGE);
}

/** Saves a full-page screenshot under test-results/website/, once the page has {@link settled}. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  // From the top: a full-page capture of a scrolled page draws the sticky header mid-page.
  await page.evaluate(() => window.scrollTo(0, 0));
  await settled(page);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
