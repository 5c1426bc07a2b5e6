import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolationsIn, generateAndWait } from './lightbox-support.js';
import { seedBatch } from './seed-batches.js';
import { until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const WIDE = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

interface Work {
  id: string;
  prompt: string;
  starred?: boolean;
}

/**
 * Issue 37, the defects a daily user meets first (items 2 and 5–11), one after another on one app,
 * as a person who makes images every day: an operator with works of several shapes, batches in
 * states the engine passes through too fast to look at (seeded), and another account with 2,000
 * tasks waiting on the local renderer.
 */
describe('website, a daily user (Chromium, end to end)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '50' }));
  const { api, goTo, signIn } = site;
  let page: Page;
  let accountId = '';
  const works = new Map<string, string>();
  before(async () => {
    page = site.page;
    const core = site.server.testApp.core;
    accountId = (await core.accounts.requireByEmail(site.server.email)).id;
    await core.accounts.setOperator(accountId, true);
  });
  const lightbox = () => page.locator('dialog.lightbox');
  const history = async () =>
    ((await (await api('/api/v1/history?limit=50')).json()) as { items: Work[] }).items;
  const generate = async (prompt: string, body: Record<string, unknown> = {}) => {
    await generateAndWait(api, prompt, body);
    const made = (await history()).find((work) => work.prompt === prompt);
    assert.ok(made);
    works.set(prompt, made.id);
  };
  const starredOnServer = async (prompt: string) =>
    (await history()).find((work) => work.prompt === prompt)?.starred === true;
  const rectsOf = (selector: string) =>
    page.locator(selector).evaluateAll((elements) =>
      elements.map((element) => {
        const r = element.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
      }),
    );

  test('sign in; works of several shapes made through the API', async () => {
    await page.setViewportSize(WIDE);
    await page.goto('/');
    await signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    await generate('a tall tower in fog', { aspect: '9:16' });
    await generate('four square gardens', { aspect: '1:1', count: 4 });
    await generate('a red lighthouse on a cliff', { aspect: '16:9' });
    await generate('two wide beaches', { aspect: '16:9', count: 2 });
    await generate('a portrait of a cat', { aspect: '3:4' });
  });

  test('item 5: every console page answers 200 with the app on a direct load and a reload', async () => {
    const pages = [
      ['/admin', 'Accounts'],
      ['/admin/usage', 'Usage and spend'],
      ['/admin/policies', 'Tier policies'],
      ['/admin/upstreams', 'Providers'],
      [`/admin/accounts/${accountId}`, site.server.email],
    ] as const;
    for (const [path, heading] of pages) {
      const loaded = await page.goto(path);
      assert.equal(loaded?.status(), 200, `GET ${path}`);
      await page.getByRole('heading', { name: heading }).first().waitFor();
      const reloaded = await page.reload();
      assert.equal(reloaded?.status(), 200, `reload ${path}`);
    }
    // An unknown page is still a 404 (with the app, which says so).
    assert.equal((await page.goto('/admin/nothing-here'))?.status(), 404);
    assert.equal((await page.goto('/no-such-page'))?.status(), 404);
  });

  test('item 2: the Create lightbox offers the star, and S stars the work shown', async () => {
    await page.goto('/');
    await page.getByRole('button', { name: 'Open image: a tall tower in fog' }).click();
    await lightbox().waitFor();
    const star = lightbox().locator('.star-button');
    await star.waitFor();
    assert.equal(await star.getAttribute('aria-pressed'), 'false');
    await page.keyboard.press('s');
    await until('starred by S', async () => (await star.getAttribute('aria-pressed')) === 'true');
    await until('starred on the server', () => starredOnServer('a tall tower in fog'));
    // Newest first, the tower is the last image: the one before it (a garden) is another work.
    await page.keyboard.press('ArrowLeft');
    await until(
      'the garden is not starred',
      async () => (await star.getAttribute('aria-pressed')) === 'false',
    );
    await page.keyboard.press('ArrowRight');
    await until('back: still starred', async () => (await star.getAttribute('aria-pressed')) === 'true');
    await page.keyboard.press('s');
    await until('unstarred', async () => !(await starredOnServer('a tall tower in fog')));
    await page.keyboard.press('Escape');
  });

  test('item 2: the Library lightbox offers the star too', async () => {
    await goTo('Library', '/library');
    await page.locator('[data-asset-id] .asset-thumb').first().click();
    await lightbox().waitFor();
    const shown = (await lightbox().locator('img.lightbox-image').getAttribute('alt')) ?? '';
    const star = lightbox().locator('.star-button');
    await star.click();
    await until('starred from the Library', () => starredOnServer(shown));
    await page.keyboard.press('s');
    await until('S unstars it', async () => !(await starredOnServer(shown)));
    await page.keyboard.press('Escape');
  });

  test('item 6: moving back clears "This is the last image."; a second double-click returns to fit', async () => {
    await goTo('Create', '/');
    await page.getByRole('button', { name: 'Open image: a portrait of a cat' }).click();
    await lightbox().waitFor();
    const status = lightbox().locator('.lightbox-status');
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowRight');
    assert.equal(await status.textContent(), 'This is the last image.');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await status.textContent(), '', 'the end is no longer where the person is');

    const image = lightbox().locator('img.lightbox-image');
    await until('loaded', () =>
      image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
    );
    await image.dblclick();
    await lightbox().locator('[data-zoom="100"]').waitFor();
    await lightbox().locator('.lightbox-stage').dblclick();
    await lightbox().locator('[data-zoom="fit"]').waitFor({ timeout: 3000 });
    await image.dblclick();
    await lightbox().locator('[data-zoom="100"]').waitFor();
    await page.keyboard.press('Escape');
  });

  test('item 7: a batch half done reads "Rendering", cancelled images are not failures, the phone strip counts the batch', async () => {
    const core = site.server.testApp.core;
    const source = works.get('a red lighthouse on a cliff') as string;
    await seedBatch(core, source, 'half of four cancelled', [
      'completed',
      'cancelled',
      'completed',
      'cancelled',
    ]);
    await seedBatch(core, source, 'two of four done, two waiting', [
      'completed',
      'completed',
      'queued',
      'queued',
    ]);
    await page.goto('/');
    const waiting = site.card('two of four done, two waiting');
    const status = () => waiting.locator('.status-text').textContent();
    await until('the half-done batch', async () => /2 of 4 done/.test((await status()) ?? ''));
    assert.match((await status()) ?? '', /^Rendering · 2 of 4 done/);

    const cancelled = site.card('half of four cancelled');
    assert.equal(await cancelled.locator('.status-text').textContent(), '2 done, 2 cancelled');
    assert.equal(await cancelled.locator('.placeholder.failed').count(), 0, 'not shown as failures');
    assert.equal(await cancelled.locator('.placeholder.cancelled').count(), 2);
    assert.equal(await cancelled.locator('.error-text').count(), 0, 'no error said');
    assert.equal(await cancelled.getByRole('button', { name: /failed/ }).count(), 0, 'no "Retry 2 failed"');
    await cancelled.getByRole('button', { name: 'Render the 2 cancelled' }).waitFor();

    await page.setViewportSize(PHONE);
    const strip = page.locator('.rendering-strip');
    await strip.waitFor();
    assert.equal((await strip.textContent())?.replace('View', ''), 'Rendering 4 images, 2 done…');
    await page.setViewportSize(WIDE);
    // Asked at 4K with only 1K history: no estimate is given (none is known for 4K).
    await seedBatch(core, source, 'a poster at 4K', ['queued'], { imageSize: '4K' });
    await page.reload();
    const poster = site.card('a poster at 4K');
    await until('the 4K card', async () =>
      /Queued/.test((await poster.locator('.status-text').textContent()) ?? ''),
    );
    assert.doesNotMatch((await poster.locator('.status-text').textContent()) ?? '', /about/);
    assert.match((await site.card('a red lighthouse').locator('.task-meta').textContent()) ?? '', /1K/);
  });

  test('item 8: Create at 1440 packs its cards: no hole under a batch beside a tall single, no empty third', async () => {
    await page.goto('/');
    await page.getByRole('button', { name: 'Open image: a tall tower in fog' }).waitFor();
    const grid = (await rectsOf('.task-grid'))[0];
    assert.ok(grid);
    await page.screenshot({ path: 'test-results/website/daily-create-1440.png', fullPage: true });
    const cards = await rectsOf('.task-grid > article');
    assert.ok(cards.length >= 7);
    // Each column's end (the lowest card over it); below the shortest one the feed just ends.
    const xs = Array.from({ length: 24 }, (_, i) => grid.left + ((i + 0.5) * (grid.right - grid.left)) / 24);
    const ends = xs.map((x) =>
      Math.max(grid.top, ...cards.filter((c) => c.left <= x && x <= c.right).map((c) => c.bottom)),
    );
    const floor = Math.min(...ends);
    assert.ok(floor > grid.top + 200, `every column holds a card (ends: ${ends.map(Math.round).join(', ')})`);
    // The tallest gap at any point across the tasks above that end: before, ~300 px under a batch
    // beside a tall single, and a whole column empty beside batches.
    const STEP = 8;
    let tallest = 0;
    for (const x of xs) {
      let run = 0;
      for (let y = grid.top; y < floor; y += STEP) {
        const covered = cards.some((c) => c.left <= x && x <= c.right && c.top <= y && y <= c.bottom);
        run = covered ? 0 : run + STEP;
        tallest = Math.max(tallest, run);
      }
    }
    assert.ok(tallest <= 160, `the tallest gap is ${tallest} px (at most 160: under half the shortest card)`);
  });

  test('item 9: during an Undo offer the heading counts what is shown; From and To line up with Model and Mode', async () => {
    await goTo('Saved works', '/works');
    const count = page.locator('.page-header .muted');
    await until('the count', async () => /\d+ works/.test((await count.textContent()) ?? ''));
    const before = Number.parseInt((await count.textContent()) ?? '', 10);
    for (const prompt of ['a portrait of a cat', 'two wide beaches']) {
      const box = page.locator('article.work-card', { hasText: prompt }).getByRole('checkbox');
      // Mid-screen: once one is checked, the sticky selection bar covers the top of the grid.
      await box.evaluate((element) => element.scrollIntoView({ block: 'center' }));
      await box.check({ force: true });
    }
    await page.getByRole('button', { name: 'Delete 2 works' }).click();
    await page.getByRole('status').getByText('Deleted 2 works').waitFor();
    assert.equal(await count.textContent(), `${before - 2} works`);
    await page.getByRole('button', { name: 'Undo' }).click();
    await until('back', async () => (await count.textContent()) === `${before} works`);

    const labels = await page
      .locator('.search-filters .field-label')
      .evaluateAll((spans) =>
        spans.map((span) => [span.textContent, Math.round(span.getBoundingClientRect().top)] as const),
      );
    assert.deepEqual(
      labels.map(([name]) => name),
      ['Model', 'Mode', 'From', 'To'],
    );
    const tops = new Set(labels.map(([, top]) => top));
    assert.equal(tops.size, 1, `labels on one line: ${JSON.stringify(labels)}`);
  });

  test('item 10: Upstreams counts the local renderer’s waiting tasks and says which providers have no key', async () => {
    const core = site.server.testApp.core;
    const other = await site.server.testApp.createAccount('busy@example.test');
    const seeded = await seedBatch(
      core,
      works.get('a red lighthouse on a cliff') as string,
      'a backlog',
      Array.from({ length: 2000 }, () => 'queued' as const),
      { accountId: other.id },
    );
    assert.ok(seeded);
    await page.goto('/admin/upstreams');
    const row = (name: string) =>
      page
        .getByRole('table', { name: 'Circuit breakers' })
        .getByRole('row')
        .filter({ hasText: new RegExp(`^${name}`) });
    await until('the local row counts the backlog', async () =>
      /2,003/.test((await row('local').textContent()) ?? ''),
    );
    assert.equal(await page.getByText('No upstream call has been made yet').count(), 0);
    for (const name of ['gemini', 'openai', 'replicate', 'fal']) {
      const text = (await row(name).textContent()) ?? '';
      assert.match(text, /no key/, name);
      assert.doesNotMatch(text, /closed \(working\)/, name);
    }
  });

  test('item 11: usage at $0 charts images, lists only days with images, and an idle account says so', async () => {
    await page.goto('/admin/usage');
    await page.getByText('Nothing in this range had a price').waitFor();
    const chart = page.getByRole('img', { name: /^Images per day, every account/ });
    await chart.waitFor();
    assert.ok(
      (await chart
        .locator('rect')
        .evaluateAll((bars) => bars.filter((b) => Number(b.getAttribute('height')) > 0).length)) >= 1,
    );
    const days = page.getByRole('table', { name: /Per day/ }).getByRole('row');
    assert.equal(await days.count(), 2, 'the header and today, not 30 zero rows');
    const range = await page
      .getByLabel('Range (UTC days)')
      .evaluate((select) => select.getBoundingClientRect().width);
    assert.ok(range < 300, `the Range select is ${range} px wide`);

    const idle = await site.server.testApp.createAccount('idle@example.test');
    await page.goto(`/admin/accounts/${idle.id}`);
    await page.getByText('No image was made or failed in the last 30 days (UTC).').waitFor();
    assert.equal(await page.getByRole('img', { name: /per day/ }).count(), 0, 'no empty chart');
  });

  test('compare mode: K puts the work beside the next, → changes the second, up to four, a slider for two', async () => {
    await page.setViewportSize(WIDE);
    await goTo('Saved works', '/works');
    await page
      .locator('article.work-card', { hasText: 'a red lighthouse on a cliff' })
      .locator('.work-cover')
      .click();
    await lightbox().waitFor();
    await page.keyboard.press('k');
    const panes = lightbox().locator('.compare-pane');
    await until('two panes', async () => (await panes.count()) === 2);
    const alts = () => panes.locator('img').evaluateAll((imgs) => imgs.map((img) => img.getAttribute('alt')));
    const srcs = () => panes.locator('img').evaluateAll((imgs) => imgs.map((img) => img.getAttribute('src')));
    const first = await srcs();
    assert.equal((await alts())[0], 'a red lighthouse on a cliff');
    await until('both images loaded', () =>
      panes
        .locator('img')
        .evaluateAll((imgs) => imgs.every((img) => (img as HTMLImageElement).naturalWidth > 0)),
    );
    const [left, right] = await rectsOf('dialog.lightbox .compare-pane');
    assert.ok(
      left && right && left.right <= right.left && Math.abs(left.top - right.top) < 2,
      'side by side',
    );
    await page.keyboard.press('ArrowRight');
    await until('the second pane moved on', async () => (await srcs())[1] !== first[1]);
    assert.equal((await srcs())[0], first[0], 'the first stays');
    await lightbox().getByRole('button', { name: 'Add image' }).click();
    await until('three panes', async () => (await panes.count()) === 3);
    assert.ok(await lightbox().getByRole('button', { name: 'Slider' }).isDisabled(), 'the slider takes two');
    await page.screenshot({ path: 'test-results/website/daily-compare-three.png' });
    assert.deepEqual(await axeViolationsIn(page, 'dialog.lightbox'), [], 'axe, three side by side');
    await panes
      .nth(1)
      .getByRole('button', { name: /out of the comparison/ })
      .click();
    await until('two again', async () => (await panes.count()) === 2);
    await lightbox().getByRole('button', { name: 'Slider' }).click();
    const range = lightbox().getByRole('slider', { name: /^Divider/ });
    await range.focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowLeft');
    assert.equal(await range.inputValue(), '40');
    const clip = await lightbox()
      .locator('.compare-top')
      .evaluate((img) => (img as HTMLElement).style.clipPath);
    assert.equal(clip, 'inset(0px 60% 0px 0px)');
    assert.deepEqual(await axeViolationsIn(page, 'dialog.lightbox'), [], 'axe, the slider');
    await page.keyboard.press('Escape');
    await until('closed', async () => (await lightbox().count()) === 0);
  });

  testNoConsoleErrors(site);
});
