import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { screenshot, serve, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/**
 * End to end: the real service on a free port, the built website, Debian's Chromium. One signed-in
 * browser walks through the list in order; each step leaves screenshots in
 * test-results/website/. This file: sign-in, Create, saved works and the library; the account page,
 * cross-site requests and the phone width are in website-account.test.ts.
 */
describe('website (Chromium, end to end)', () => {
  let images: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    const photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#2a7ab0' } })
      .composite([
        {
          input: Buffer.from(
            '<svg width="320" height="240"><circle cx="160" cy="120" r="70" fill="#f5c542"/></svg>',
          ),
        },
      ])
      .png()
      .toBuffer();
    images = await serve({ '/photo.png': { type: 'image/png', body: photo } });
  });
  // Registered after the images server's hook, so the service starts allowing uploads from it.
  const site = websiteSession(() => ({
    ATELIER_UPLOAD_ALLOWED_HOSTS: images.host,
    ATELIER_LOCAL_LATENCY_MS: '5000',
  }));
  const { api, card, imageLoaded, goTo, requested, signIn } = site;
  let server: typeof site.server;
  let context: BrowserContext;
  let page: Page;
  before(() => {
    ({ server, context, page } = site);
  });
  after(async () => {
    await images?.close();
  });

  test('a wrong password is refused with the same message as an unknown email', async () => {
    await page.goto('/works');
    await until('the sign-in page', () => new URL(page.url()).pathname === '/sign-in');
    await screenshot(page, '01-sign-in');
    await page.getByLabel('Email').fill(server.email);
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const wrong = await page.getByRole('alert').textContent();
    assert.match(wrong ?? '', /Email or password is incorrect/);
    await page.getByLabel('Email').fill('nobody@example.test');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await until('the same message', async () => (await page.getByRole('alert').textContent()) === wrong);
    await screenshot(page, '02-sign-in-error');
  });
  test('sign in, landing where the person was going', async () => {
    await signIn();
    await page.getByRole('heading', { name: 'Saved works' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/works');
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'atelier_session');
    assert.ok(session?.httpOnly, 'HttpOnly session cookie');
    assert.equal(session?.sameSite, 'Lax');
    await goTo('Create', '/');
  });

  test('the pickers offer exactly what the catalog allows for the chosen model', async () => {
    const catalog = (await (await api('/api/v1/models')).json()) as {
      default_model: string;
      data: Array<{
        id: string;
        name: string;
        modes: string[];
        aspects: string[];
        sizes: string[];
        maxCount: number;
      }>;
    };
    const model = catalog.data.find((m) => m.id === catalog.default_model);
    assert.ok(model);
    assert.equal(await page.getByLabel('Model').inputValue(), model.id);
    const radios = (group: string) =>
      page
        .getByRole('group', { name: group })
        .getByRole('radio')
        .evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    assert.deepEqual(await radios('Mode'), model.modes);
    assert.deepEqual(await radios('Aspect ratio'), model.aspects);
    assert.deepEqual(await radios('Size'), model.sizes);
    assert.deepEqual(
      await radios('Images'),
      Array.from({ length: model.maxCount }, (_, i) => String(i + 1)),
    );
    assert.equal(
      await page.getByRole('radio', { name: 'Fusion' }).count(),
      0,
      'no model of the default catalog offers fusion',
    );
  });

  test('text to image: progress, then the images as soon as they land', async () => {
    requested.length = 0;
    await page.getByLabel('Prompt').fill('a lighthouse at dawn');
    await page.getByRole('radio', { name: '16:9' }).check();
    await page.getByRole('radio', { name: '1K' }).check();
    await page.getByRole('group', { name: 'Images' }).getByRole('radio', { name: '2' }).check();
    await page.getByRole('button', { name: 'Generate 2 images' }).click();
    // One card for the request (issue 30: a batch is one card), with a place for each image.
    await until(
      'one web card for both images',
      async () =>
        (await card('a lighthouse at dawn').count()) === 1 &&
        (await card('a lighthouse at dawn').locator('.task-visual').count()) === 2,
    );
    assert.equal(await card('a lighthouse at dawn').first().locator('.badge').textContent(), 'Web');
    const progress = await until('a progress bar between 0 and 100', async () => {
      const values = await page
        .getByRole('progressbar', { name: /a lighthouse at dawn/ })
        .evaluateAll((bars) => bars.map((b) => Number(b.getAttribute('aria-valuenow'))));
      return values.find((v) => v > 0 && v < 100);
    });
    assert.ok(progress !== undefined && progress > 0);
    await screenshot(page, '03-create-in-progress');
    await imageLoaded('a lighthouse at dawn');
    await until(
      'both images',
      async () => (await page.locator('img[alt="a lighthouse at dawn"]').count()) === 2,
    );
    await until(
      'no progress bar left',
      async () => (await page.getByRole('progressbar', { name: /a lighthouse/ }).count()) === 0,
    );
    await screenshot(page, '04-create-done');
    // Followed through the event stream, not by polling the tasks.
    assert.ok(
      requested.some((url) => url.startsWith('/api/v1/tasks/events?ids=')),
      'an event stream was opened',
    );
    assert.ok(
      !requested.some((url) => url.startsWith('/api/v1/tasks?ids=')),
      'no task polling while the stream works',
    );
  });

  test('when the event stream drops, Create falls back to polling and still completes', async () => {
    await page.route('**/api/v1/tasks/events**', (route) => route.abort());
    try {
      requested.length = 0;
      await page.getByLabel('Prompt').fill('a harbour without a stream');
      await page.getByRole('radio', { name: '1K' }).check();
      await page.getByRole('group', { name: 'Images' }).getByRole('radio', { name: '1' }).check();
      await page.getByRole('button', { name: /Generate/ }).click();
      await until('the feed to fall back to polling', () =>
        page.evaluate(() => document.documentElement.dataset.taskFeed === 'polling'),
      );
      await imageLoaded('a harbour without a stream');
    } finally {
      await page.unroute('**/api/v1/tasks/events**');
    }
    // …and it goes back to the stream once it can (the feed retries after 10 s).
    await until(
      'the feed to return to the stream',
      () => page.evaluate(() => document.documentElement.dataset.taskFeed === 'stream'),
      20_000,
    );
  });

  test('an invalid request shows the API error inline', async () => {
    await page.getByLabel('Prompt').fill('a storm [[upstream_error]]');
    await page.getByRole('button', { name: /Generate/ }).click();
    const message = await page.locator('.form-error').textContent();
    assert.match(message ?? '', /simulated upstream error/);
  });

  test('edit with a reference uploaded from a file', async () => {
    const png = await sharp({ create: { width: 200, height: 150, channels: 3, background: '#b04a2a' } })
      .png()
      .toBuffer();
    await page
      .getByTestId('reference-file')
      .setInputFiles({ name: 'brick.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('img', { name: 'Reference: brick.png' }).waitFor();
    assert.ok(
      await page.getByRole('radio', { name: 'Edit' }).isChecked(),
      'adding a reference switches to Edit',
    );
    await page.getByLabel('Prompt').fill('the brick wall, painted teal');
    await page.getByRole('group', { name: 'Images' }).getByRole('radio', { name: '1' }).check();
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await card('the brick wall, painted teal').waitFor();
    await imageLoaded('the brick wall, painted teal');
  });

  test('edit with a reference uploaded from a URL (and a clear error for a bad one)', async () => {
    await page.getByRole('button', { name: 'Remove reference brick.png' }).click();
    await page.getByRole('button', { name: 'From a link' }).click();
    await page.getByLabel('Image link').fill(`${images.origin}/missing.png`);
    await page.getByLabel('Image link').press('Enter');
    const error = await page.getByRole('alert').filter({ hasText: 'missing.png' }).textContent();
    assert.match(error ?? '', /404/);
    await page.getByLabel('Image link').fill(`${images.origin}/photo.png`);
    await page.getByLabel('Image link').press('Enter');
    await page.getByRole('img', { name: 'Reference: photo.png' }).waitFor();
    await screenshot(page, '05-create-reference');
    await page.getByLabel('Prompt').fill('the yellow sun over a blue sea');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await imageLoaded('the yellow sun over a blue sea');
  });

  test('references also come from a paste, a drop, and the library picker', async () => {
    const square = async (background: string) => [
      ...(await sharp({ create: { width: 64, height: 64, channels: 3, background } })
        .png()
        .toBuffer()),
    ];
    const bytes = await square('#40a060');
    await page.getByRole('radio', { name: 'Text to image' }).check();
    // The browser's own events, with the file in their DataTransfer, as a real paste or drop makes them.
    await page.evaluate((data) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(data)], 'pasted.png', { type: 'image/png' }));
      window.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true }));
    }, bytes);
    await page.getByRole('img', { name: 'Reference: pasted.png' }).waitFor();
    assert.ok(await page.getByRole('radio', { name: 'Edit' }).isChecked(), 'a pasted image switches to Edit');
    await page.locator('.dropzone').evaluate(
      (zone, data) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(data)], 'dropped.png', { type: 'image/png' }));
        zone.dispatchEvent(
          new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }),
        );
      },
      await square('#a04060'),
    );
    await page.getByRole('img', { name: 'Reference: dropped.png' }).waitFor();
    assert.equal(
      await page.getByRole('img', { name: 'Reference: pasted.png' }).count(),
      0,
      'edit keeps exactly one reference',
    );

    await page.getByRole('button', { name: 'From library' }).click();
    const picker = page.getByRole('dialog', { name: 'Choose from your library' });
    await picker.getByRole('button').filter({ hasText: 'Result' }).first().click();
    await picker.waitFor({ state: 'detached' });
    await page.locator('.ref img[alt^="Reference: "]').first().waitFor();
    assert.equal(await page.getByRole('img', { name: 'Reference: dropped.png' }).count(), 0);
    const name = await page.locator('.ref img').first().getAttribute('alt');
    assert.match(name ?? '', /Reference: (a lighthouse at dawn|the brick wall|the yellow sun)/);
  });

  test('keyboard: skip link, prompt, and Ctrl+Enter to generate', async () => {
    await page.getByRole('radio', { name: 'Text to image' }).check();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate(() => document.activeElement?.id),
      await page.getByLabel('Prompt').getAttribute('id'),
    );
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('typed without a mouse');
    await page.keyboard.press('Control+Enter');
    await card('typed without a mouse').waitFor();
    // Radios move with the arrow keys, as native radios do.
    await page.getByRole('radio', { name: '1:1' }).focus();
    await page.keyboard.press('ArrowRight');
    assert.ok(await page.getByRole('radio', { name: '2:3' }).isChecked());
    const ring = await page.getByRole('radio', { name: '2:3' }).evaluate((input) => {
      const face = input.nextElementSibling as HTMLElement;
      return getComputedStyle(face).outlineStyle;
    });
    assert.equal(ring, 'solid', 'a visible focus ring');
  });

  test('a task submitted through the API is taken over by Create and completes there', async () => {
    // While the page is open: it shows up at the next look.
    const live = await api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ prompt: 'submitted through the api', aspect: '3:2', imageSize: '1K' }),
    });
    assert.equal(live.status, 200);
    await card('submitted through the api').waitFor();
    assert.equal(await card('submitted through the api').locator('.badge').textContent(), 'API');
    await screenshot(page, '06-create-api-task');
    await imageLoaded('submitted through the api');

    // Opened afterwards: every pending task of the account is there from the start.
    await api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ prompt: 'sent before opening', imageSize: '1K' }),
    });
    await page.reload();
    await card('sent before opening').waitFor();
    assert.equal(await card('sent before opening').locator('.badge').textContent(), 'API');
    await imageLoaded('sent before opening');
    const record = (await (await api('/api/v1/history?limit=1')).json()) as {
      items: Array<{ prompt: string; images: string[] }>;
    };
    assert.equal(record.items[0]?.prompt, 'sent before opening');
    assert.equal(record.items[0]?.images.length, 1, 'saved server-side');
  });

  test('saved works list it, open large; its image is in the library', async () => {
    await goTo('Saved works', '/works');
    const work = page.locator('article.work-card', { hasText: 'submitted through the api' });
    await work.waitFor();
    await imageLoaded('submitted through the api');
    await screenshot(page, '07-saved-works');
    await work.getByRole('button', { name: 'Open', exact: true }).click();
    const dialog = page.locator('dialog.lightbox');
    await dialog.waitFor();
    assert.match((await dialog.locator('.params').textContent()) ?? '', /SourceAPI/);
    await screenshot(page, '08-saved-work-open');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await goTo('Library', '/library');
    await page.getByRole('radio', { name: 'Results' }).check();
    await until('the results filter', () => page.url().endsWith('/library?kind=result'));
    // The filtered page replaces the unfiltered one when it arrives: wait for that, not for an
    // image the unfiltered page already shows.
    await until(
      'only results listed',
      async () =>
        (await page.locator('.asset-card .badge', { hasText: 'Upload' }).count()) === 0 &&
        (await page.getByRole('img', { name: 'submitted through the api' }).count()) > 0,
    );
    await page.getByRole('radio', { name: 'Uploads' }).check();
    // file, URL, paste and drop uploads (the bad URL uploaded nothing)
    await until('four uploads', async () => (await page.locator('.asset-card').count()) === 4);
    assert.match((await page.locator('.library-grid').textContent()) ?? '', /320 × 240/);
    await page.getByRole('radio', { name: 'All' }).check();
    await imageLoaded('submitted through the api');
    await screenshot(page, '09-library');
  });

  test('reuse settings fills the Create form', async () => {
    await goTo('Saved works', '/works');
    await page
      .locator('article.work-card', { hasText: 'a lighthouse at dawn' })
      .getByRole('button', { name: 'Reuse settings' })
      .click();
    await until('Create', () => new URL(page.url()).pathname === '/');
    assert.equal(await page.getByLabel('Prompt').inputValue(), 'a lighthouse at dawn');
    assert.ok(await page.getByRole('radio', { name: '16:9' }).isChecked());
    assert.ok(await page.getByRole('radio', { name: '1K' }).isChecked());
    assert.ok(
      await page.getByRole('group', { name: 'Images' }).getByRole('radio', { name: '2' }).isChecked(),
    );
    assert.ok(await page.getByRole('radio', { name: 'Text to image' }).isChecked());
  });

  test('"use as reference" from the library sends the image to Create', async () => {
    await goTo('Library', '/library');
    await page.getByRole('button', { name: 'Use as reference: submitted through the api' }).click();
    await until('Create', () => new URL(page.url()).pathname === '/');
    await page.getByRole('img', { name: 'Reference: submitted through the api' }).waitFor();
    assert.ok(await page.getByRole('radio', { name: 'Edit' }).isChecked());
  });

  test('delete removes a work from the gallery; history marks it removed', async () => {
    await goTo('Saved works', '/works');
    const work = page.locator('article.work-card', { hasText: 'the brick wall, painted teal' });
    await work.getByRole('button', { name: /^Delete/ }).click();
    await page
      .getByRole('dialog', { name: 'Delete this work?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await work.waitFor({ state: 'detached' });
    await page.reload();
    await page.locator('article.work-card').first().waitFor();
    assert.equal(await work.count(), 0, 'still gone after a reload');
    const history = (await (await api('/api/v1/history?limit=50')).json()) as {
      items: Array<{ prompt: string; removed?: boolean }>;
    };
    assert.equal(history.items.find((i) => i.prompt === 'the brick wall, painted teal')?.removed, true);
  });

  testNoConsoleErrors(site);
});
