// The gallery app (MCP Apps, issue 46) in headless Chromium, inside a test host that implements the
// extension's bridge as its example host does (mcp-apps-host.ts: the SDK's client over Streamable HTTP
// to the real app's /mcp, the page in a sandboxed frame under the CSP it declares, AppBridge over a
// PostMessageTransport). The local renderer takes a few seconds a task, so the page is seen queued or
// rendering before its images; it polls batch_get_tasks through the host's bridge (no credentials in
// the page), shows the images with their sizes, and its buttons call act_on_image and refine_image
// through the host: a new version appears. axe finds nothing, at 1440 and at 390 px, light and dark.
// Needs `npm run build` (the page is dist/mcp-app/gallery.html).
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import type { Browser, Frame, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { expectNoAxeViolations } from './axe.js';
import { launchChromium, ROOT } from './support.js';

const SHOTS = join(ROOT, 'test-results', 'mcp-apps');
const HOST_PATH = '/__mcp-apps-test-host';

interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

interface HostRun {
  modelContext: string[];
  openedLinks: string[];
}

async function hostPage(): Promise<string> {
  const bundle = await build({
    entryPoints: [join(ROOT, 'test', 'browser', 'mcp-apps-host.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  });
  const script = bundle.outputFiles[0]?.text.replaceAll('</script', '<\\/script') ?? '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title>
<style>body{margin:0;font-family:system-ui}iframe{display:block;width:100%;border:0}</style></head>
<body><main id="conversation"></main><script type="module">${script}</script></body></html>`;
}

/** A page of the test host at `width`, recording every tools/call the host sends to /mcp. */
async function openHost(browser: Browser, t: TestApp, html: string, width: number) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const calls: ToolCall[] = [];
  const problems: string[] = [];
  page.on('request', (request) => {
    if (!request.url().endsWith('/mcp') || request.method() !== 'POST') return;
    const body = request.postDataJSON() as { method?: string; params?: ToolCall };
    if (body.method === 'tools/call' && body.params) calls.push(body.params);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.route(`${t.baseUrl}${HOST_PATH}`, (route) =>
    route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }),
  );
  await page.goto(`${t.baseUrl}${HOST_PATH}`);
  return { page, calls, problems };
}

async function start(page: Page, apiKey: string, tool: string, args: object, theme: 'light' | 'dark') {
  await page.evaluate(
    ([key, name, toolArgs, hostTheme]) =>
      (
        globalThis as unknown as {
          startHost(k: string, n: string, a: object, c: object): Promise<unknown>;
        }
      ).startHost(key, name, toolArgs, { theme: hostTheme, displayMode: 'inline', platform: 'web' }),
    [apiKey, tool, args, theme] as const,
  );
}

async function galleryFrame(page: Page): Promise<Frame> {
  const handle = await page.waitForSelector('iframe[title="Atelier gallery"]');
  const frame = await handle.contentFrame();
  assert.ok(frame, 'the gallery frame');
  await frame.waitForSelector('main');
  return frame;
}

/** Each finished card's caption, e.g. "1024 × 1024 px · PNG · 1.2 MB", once its image has loaded. */
async function finishedSizes(frame: Frame, count: number): Promise<string[]> {
  await frame.waitForFunction(
    (n) => {
      const loaded = [...document.querySelectorAll<HTMLImageElement>('.shot[data-status="completed"] img')];
      return loaded.length >= n && loaded.every((image) => image.complete && image.naturalWidth > 0);
    },
    count,
    { timeout: 60_000 },
  );
  return frame.$$eval('.shot[data-status="completed"] .size', (nodes) =>
    nodes.map((node) => node.textContent ?? ''),
  );
}

async function hostRun(page: Page): Promise<HostRun> {
  return page.evaluate(() => (globalThis as unknown as { hostRun: HostRun }).hostRun);
}

describe('the gallery app (MCP Apps) in a host', () => {
  let t: TestApp;
  let apiKey = '';
  let browser: Browser;
  let html = '';

  before(async () => {
    // Slow enough renders that the page shows each task queued or rendering before it is done.
    t = await createTestApp({ listen: true, env: { ATELIER_LOCAL_LATENCY_MS: '5000' } });
    ({ apiKey } = await t.createAccount(undefined, { tier: 'pro' }));
    html = await hostPage();
    // A sandboxed frame has an opaque origin, which Chromium's local network access checks keep from
    // loopback addresses: the test's Atelier is on 127.0.0.1, a real one on a public address.
    browser = await launchChromium(['--disable-features=LocalNetworkAccessChecks']);
    await mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('1440 px, light: progress moves, two images appear with sizes, Upscale makes a new version', async () => {
    const { page, calls, problems } = await openHost(browser, t, html, 1440);
    await start(
      page,
      apiKey,
      'generate_image',
      { prompt: 'a lighthouse at dusk', count: 2, imageSize: '1K' },
      'light',
    );
    const frame = await galleryFrame(page);

    // The result came back at once (no wait): the page shows both tasks unfinished, then polls.
    await frame.waitForSelector('.shot[data-status="queued"], .shot[data-status="in_progress"]');
    assert.equal(await frame.locator('.shot').count(), 2);
    await expectNoAxeViolations(frame, 'gallery while rendering, 1440 px');
    const sizes = await finishedSizes(frame, 2);
    assert.equal(sizes.length, 2);
    for (const size of sizes) assert.match(size, /^\d+ × \d+ px · PNG · [\d.]+ (kB|MB)$/);
    assert.match(await frame.locator('#summary').innerText(), /2 of 2 images ready/);
    const polls = calls.filter((call) => call.name === 'batch_get_tasks');
    assert.ok(polls.length > 0, 'the page followed the tasks through the host (batch_get_tasks)');
    const [firstTask] = (polls[0]?.arguments.task_ids as string[]) ?? [];
    await page.screenshot({ path: join(SHOTS, 'gallery-1440.png') });
    await expectNoAxeViolations(frame, 'gallery with images, 1440 px');

    // Keyboard: the first card's Upscale, focused and pressed.
    const upscale = frame.getByRole('button', { name: 'Upscale ×2' }).first();
    await upscale.focus();
    assert.equal(
      await upscale.evaluate((node) => getComputedStyle(node).outlineStyle),
      'solid',
      'focus visible',
    );
    await page.keyboard.press('Enter');
    const versionTitle = frame.locator('.shot .title', { hasText: /^Upscale ×2 of/ });
    await versionTitle.waitFor();
    const acted = calls.find((call) => call.name === 'act_on_image');
    assert.deepEqual(acted?.arguments, { id: firstTask, action: 'upscale', scale: 2 });
    const after = await finishedSizes(frame, 3);
    const [width] = (sizes[0] ?? '').split(' ');
    assert.ok(
      after.some((size) => size.startsWith(`${Number(width) * 2} × `)),
      `an image twice as wide among ${after}`,
    );
    // The new version sits right after the image it came from.
    const titles = await frame.locator('.shot .title').allInnerTexts();
    assert.match(titles[1] ?? '', /^Upscale ×2 of/);
    const run = await hostRun(page);
    assert.ok(
      run.modelContext.some((text) => text.includes('act_on_image')),
      'the model is told',
    );

    await frame.getByRole('button', { name: 'Open full size' }).first().click();
    await page.waitForFunction(
      () => (globalThis as unknown as { hostRun: HostRun }).hostRun.openedLinks.length > 0,
    );
    assert.match((await hostRun(page)).openedLinks[0] ?? '', new RegExp(`^${t.baseUrl}/files/`));
    await expectNoAxeViolations(frame, 'gallery with a new version, 1440 px');
    assert.deepEqual(
      problems.filter((text) => /Content Security Policy|Refused/i.test(text)),
      [],
    );
    await page.close();
  });

  it('390 px, dark: refine from the keyboard; the history page shows in the gallery too', async () => {
    const { page, calls, problems } = await openHost(browser, t, html, 390);
    await start(
      page,
      apiKey,
      'generate_image',
      { prompt: 'a red bicycle', imageSize: '1K', wait: 30 },
      'dark',
    );
    const frame = await galleryFrame(page);
    assert.equal(await frame.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(
      await frame.evaluate(() => getComputedStyle(document.body).backgroundColor),
      'rgb(17, 17, 20)',
    );
    await finishedSizes(frame, 1);
    const fits = await frame.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    assert.ok(fits, 'nothing wider than 390 px');

    const instruction = frame.getByLabel('Refine: what to change').first();
    await instruction.focus();
    await page.keyboard.type('make the sky darker');
    await page.keyboard.press('Enter');
    await frame.waitForSelector('.shot:nth-child(2) .title, #alert:not([hidden])');
    assert.equal(await frame.locator('#alert').isVisible(), false, await frame.locator('#alert').innerText());
    await frame.locator('.shot .title', { hasText: 'Refined: make the sky darker' }).waitFor();
    const refined = calls.find((call) => call.name === 'refine_image');
    assert.equal(refined?.arguments.instruction, 'make the sky darker');
    assert.match(String(refined?.arguments.work_id), /^tsk_/);
    await finishedSizes(frame, 2);
    assert.equal(await instruction.inputValue(), '', 'the field is cleared once the refinement started');
    await page.screenshot({ path: join(SHOTS, 'gallery-390-dark.png'), fullPage: true });
    await expectNoAxeViolations(frame, 'gallery, 390 px, dark');

    // The host switches to light: the page follows.
    await page.evaluate(() =>
      (globalThis as unknown as { setTheme(t: string): Promise<void> }).setTheme('light'),
    );
    await frame.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await expectNoAxeViolations(frame, 'gallery, 390 px, light');
    await page.close();

    // list_my_generations: the account's works, with sizes read from the images.
    const history = await openHost(browser, t, html, 390);
    await start(history.page, apiKey, 'list_my_generations', { limit: 5 }, 'light');
    const historyFrame = await galleryFrame(history.page);
    const sizes = await finishedSizes(historyFrame, 2);
    for (const size of sizes.slice(0, 2)) assert.match(size, /^\d+ × \d+ px$/);
    await expectNoAxeViolations(historyFrame, 'history in the gallery, 390 px');
    assert.deepEqual(
      [...problems, ...history.problems].filter((text) => /Content Security Policy|Refused/i.test(text)),
      [],
    );
    await history.page.close();
  });
});
