import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/**
 * Issue 37, live previews: an image made on Create shows its newest partial frame on its card while
 * it renders (the local renderer makes them, as for /v1/images streaming), then its result. The
 * renderer takes 4 s an image here so the frames (at 1/3 and 2/3 of the time) can be seen.
 */
describe('website live previews (Chromium, end to end)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '4000' }));

  test('a rendering card shows the newest frame, then the image; frames are gone after the end', async () => {
    const { page } = site;
    await page.goto('/');
    await site.signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    await page.getByLabel('Prompt').fill('a harbour at dusk, seen live');
    await page.getByRole('radio', { name: '1K' }).check();
    await page.getByRole('button', { name: 'Generate' }).click();
    const card = site.card('a harbour at dusk, seen live');
    const preview = card.locator('.live-preview img');
    const frames = new Set<string>();
    await until(
      'a preview frame shown and loaded',
      async () => {
        const src = (await preview.count()) > 0 ? await preview.getAttribute('src') : null;
        if (src) frames.add(src);
        return (
          src !== null &&
          (await preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
        );
      },
      10_000,
    );
    assert.match((await card.locator('.status-text').textContent()) ?? '', /^Rendering/);
    await site.imageLoaded('a harbour at dusk, seen live');
    await until('the preview gave way to the image', async () => (await preview.count()) === 0);
    const src = [...frames][0] as string;
    assert.match(src, /^\/web\/api\/tasks\/tsk_[^/]+\/preview\?frame=[01]$/);
    // Once the task ended its frames are removed; an unknown task's preview is a 404 too.
    const gone = await page.request.get(src);
    assert.equal(gone.status(), 404);
    assert.equal(((await gone.json()) as { error: { type: string } }).error.type, 'not_found');
    const unknown = await page.request.get('/web/api/tasks/tsk_nope/preview?frame=0');
    assert.equal(unknown.status(), 404);
    const bad = await page.request.get(`${src.replace(/frame=\d/, 'frame=9')}`);
    assert.equal(bad.status(), 400);
  });

  testNoConsoleErrors(site);
});
