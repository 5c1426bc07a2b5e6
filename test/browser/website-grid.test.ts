import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { MIXED_WORKS, makeWorks, seededId, seedWorks } from './seed-works.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const WIDE = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

/**
 * Issue 37, the galleries: Saved works with cards of different heights (nine works of seven shapes,
 * then 80) at 390 and 1440 px stays on screen to the end of the list (it used to unmount the whole
 * app, React error #185); a page that fails keeps the header and navigation; card size, day
 * headings and starred works first, each remembered.
 */
describe('website galleries (Chromium): mixed shapes, error boundary, view options', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '0' }));
  let page: Page;
  let newest: string[] = [];
  before(() => {
    page = site.page;
  });
  const nav = () => page.getByRole('navigation', { name: 'Main' });
  /** Scrolls to the end a screen at a time, waiting a frame each time; returns the page's height. */
  const scrollToEnd = () =>
    page.evaluate(async () => {
      while (window.scrollY + innerHeight < document.documentElement.scrollHeight - 1) {
        window.scrollBy(0, innerHeight * 0.8);
        // Two frames: the window follows, then the rows it rendered are measured.
        await new Promise((done) => requestAnimationFrame(done));
        await new Promise((done) => requestAnimationFrame(done));
      }
      return document.documentElement.scrollHeight;
    });
  /**
   * Scrolls through the list, top to end, until it holds `total` works read (the pages are read
   * where the window shows them; the grid is as tall as the whole list from the first page).
   */
  const loadAll = async (total: number) => {
    const read = async () => Number(await page.locator('.works-grid').getAttribute('data-virtual-total'));
    for (let pass = 0; (await read()) < total; pass++) {
      assert.ok(pass < 50, `only ${await read()} of ${total} works read after 50 passes`);
      await page.evaluate(() => window.scrollTo(0, 0));
      await scrollToEnd();
    }
  };
  const lastCardId = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('.works-grid article.work-card')].at(-1)?.getAttribute('data-work-id'),
    );

  test('nine works of seven shapes at 390 px: Saved works stays on screen, header and all, to the end', async () => {
    await page.setViewportSize(PHONE);
    await page.goto('/');
    await site.signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    newest = await makeWorks(site.api, MIXED_WORKS);
    assert.equal(newest.length, 9);
    await site.goTo('Saved works', '/works');
    await page.locator('article.work-card').first().waitFor();
    await scrollToEnd();
    // Cards of different heights settle: the oldest work is the last card, the header still there.
    await page.waitForFunction(
      (id) => [...document.querySelectorAll('article.work-card')].at(-1)?.getAttribute('data-work-id') === id,
      newest.at(-1),
    );
    assert.ok(await nav().isVisible(), 'the navigation is still shown');
    assert.ok(await page.getByRole('heading', { name: 'Saved works', level: 1 }).isVisible());
    assert.deepEqual(site.consoleErrors, []);
  });

  test('80 works of mixed shapes: scrolled to the end and back at 1440 and 390 px with no error', async () => {
    // Two hours apart: the copies span six days (day headings).
    await seedWorks(site.server.testApp.core, newest, 71, { spacingMs: 2 * 3600_000 });
    for (const size of [WIDE, PHONE]) {
      await page.setViewportSize(size);
      await page.goto('/works');
      await page.locator('article.work-card').first().waitFor();
      await loadAll(80);
      await scrollToEnd();
      assert.equal(await lastCardId(), seededId(70), `the oldest work ends the list at ${size.width}`);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.locator('article.work-card').first().waitFor();
      assert.ok(await nav().isVisible());
      assert.deepEqual(site.consoleErrors, [], `at ${size.width}`);
    }
  });

  test('keyboard: Tab from the last rendered card reaches the next work (the window follows), at 1440 and 390 px', async () => {
    const order = [...newest, ...Array.from({ length: 71 }, (_, n) => seededId(n))];
    for (const size of [WIDE, PHONE]) {
      await page.setViewportSize(size);
      await page.goto('/works');
      await loadAll(80);
      await page.evaluate(() => window.scrollTo(0, 0));
      // Back at the top (a jump: the rows draw their cards a frame or so later).
      await page.waitForFunction(() => {
        const grid = document.querySelector<HTMLElement>('.works-grid');
        return grid?.dataset.virtualStart === '0' && !grid.querySelector('.card-placeholder');
      });
      for (let step = 0; step < 3; step++) {
        const end = Number(await page.locator('.works-grid').getAttribute('data-virtual-end'));
        const lastId = (await lastCardId()) ?? '';
        // The card's last control: focusing it scrolls it into view, and the window moves on.
        await page
          .locator(`article.work-card[data-work-id="${lastId}"]`)
          .locator('button, a[href], input')
          .last()
          .focus();
        await page.waitForFunction(
          (was) => Number(document.querySelector<HTMLElement>('.works-grid')?.dataset.virtualEnd) > was,
          end,
        );
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(
          () => document.activeElement?.closest('[data-work-id]')?.getAttribute('data-work-id') ?? '',
        );
        assert.equal(focused, order[order.indexOf(lastId) + 1], `Tab from ${lastId} at ${size.width}`);
      }
    }
  });

  test('a page that fails shows a message in place, and the header and navigation stay', async () => {
    await page.setViewportSize(WIDE);
    // A broken answer (a work without its fields) makes the page throw while it renders.
    await page.route('**/web/api/works?*', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: '{"items":[{"id":"x"}],"total":3}',
      }),
    );
    await page.goto('/works');
    await page.getByRole('heading', { name: 'This page could not be shown' }).waitFor();
    assert.ok(await nav().isVisible(), 'the navigation survives');
    await page.unroute('**/web/api/works?*');
    // The boundary's report reached the console; nothing else did.
    assert.ok(site.consoleErrors.some((message) => message.includes('This page failed')));
    site.consoleErrors.splice(0);
    await site.goTo('Library', '/library');
    await page.locator('li.asset-card').first().waitFor();
    await site.goTo('Saved works', '/works');
    await page.locator('article.work-card').first().waitFor();
  });

  test('card size: Compact shows more columns than Large, remembered after a reload', async () => {
    await page.setViewportSize(WIDE);
    await page.goto('/works');
    await page.locator('article.work-card').first().waitFor();
    const columns = () => page.locator('.works-grid').getAttribute('data-columns').then(Number);
    const size = page.getByLabel('Card size');
    await size.selectOption('large');
    await page.waitForFunction(() => document.querySelector('.works-grid.density-large'));
    const large = await columns();
    await size.selectOption('compact');
    await page.waitForFunction(() => document.querySelector('.works-grid.density-compact'));
    const compact = await columns();
    assert.ok(compact > large, `compact ${compact} columns, large ${large}`);
    // The cards follow: a compact card is narrower.
    const width = await page
      .locator('article.work-card')
      .first()
      .evaluate((card) => card.clientWidth);
    assert.ok(width < 300, `a compact card is ${width} px wide`);
    await page.reload();
    await page.locator('article.work-card').first().waitFor();
    assert.equal(await size.inputValue(), 'compact');
    assert.equal(await columns(), compact);
    // The Library has its own.
    await site.goTo('Library', '/library');
    await page.locator('li.asset-card').first().waitFor();
    assert.equal(await page.getByLabel('Card size').inputValue(), 'comfortable');
    await site.goTo('Saved works', '/works');
    await size.selectOption('comfortable');
  });

  test('by day: a heading per day (Today, then older days), off and on again, remembered', async () => {
    await page.setViewportSize(WIDE);
    await page.goto('/works');
    const headings = page.locator('.works-grid h2.grid-heading');
    await headings.first().waitFor();
    assert.equal(await headings.first().textContent(), 'Today');
    // The copies are 15 minutes apart: the 80 works span a day boundary at least once.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForFunction(() => {
      const texts = [...document.querySelectorAll('.works-grid h2.grid-heading')].map((h) => h.textContent);
      return texts.some((text) => text !== 'Today');
    });
    const byDay = page.getByRole('button', { name: 'By day' });
    assert.equal(await byDay.getAttribute('aria-pressed'), 'true');
    await byDay.click();
    await page.waitForFunction(() => document.querySelectorAll('.works-grid h2.grid-heading').length === 0);
    await page.reload();
    await page.locator('article.work-card').first().waitFor();
    assert.equal(await page.locator('.works-grid h2.grid-heading').count(), 0);
    assert.equal(await byDay.getAttribute('aria-pressed'), 'false');
    await byDay.click();
    await headings.first().waitFor();
  });

  test('starred first: an old starred work leads the list under "Starred", remembered; off, it is back in its place', async () => {
    await page.setViewportSize(PHONE);
    const old = seededId(60);
    const starred = await site.api(`/api/v1/generations/${old}/star`, { method: 'PUT' });
    assert.ok(starred.ok, `star: ${starred.status}`);
    await page.goto('/works');
    await page.locator('article.work-card').first().waitFor();
    const firstCard = () => page.locator('article.work-card').first().getAttribute('data-work-id');
    assert.equal(await firstCard(), newest[0]);
    await page.getByRole('button', { name: 'Stars first' }).click();
    await page.waitForFunction(
      (id) => document.querySelector('article.work-card')?.getAttribute('data-work-id') === id,
      old,
    );
    assert.equal(await page.locator('.works-grid h2.grid-heading').first().textContent(), 'Starred');
    await page.reload();
    await page.waitForFunction(
      (id) => document.querySelector('article.work-card')?.getAttribute('data-work-id') === id,
      old,
    );
    // Every work is listed once: the starred one is not repeated further down.
    await loadAll(80);
    assert.equal(await page.locator('.works-grid').getAttribute('data-virtual-total'), '80');
    await page.getByRole('button', { name: 'Stars first' }).click();
    await page.waitForFunction(
      (id) => document.querySelector('article.work-card')?.getAttribute('data-work-id') === id,
      newest[0],
    );
  });

  test('a deep link shows its image before the list asks for any thumbnail (24 fresh works; time measured)', async () => {
    // Fresh works: their thumbnails are renditions the server has not made yet.
    await makeWorks(
      site.api,
      Array.from({ length: 24 }, (_, i) => ({
        prompt: `fresh work ${i + 1}`,
        aspect: ['1:1', '16:9', '9:16'][i % 3],
      })),
    );
    const linked = MIXED_WORKS[8]?.prompt ?? '';
    for (const size of [PHONE, WIDE]) {
      await page.setViewportSize(size);
      await page.goto(`/works?work=${newest[0]}`);
      const shownAt = await page.waitForFunction(
        (alt) => {
          const img = document.querySelector<HTMLImageElement>('dialog.lightbox img.lightbox-image');
          return img?.alt === alt && img.complete && img.naturalWidth > 0 ? performance.now() : 0;
        },
        linked,
        { polling: 'raf' },
      );
      const ms = Math.round(Number(await shownAt.jsonValue()));
      const order = await page.evaluate((alt) => {
        const src = document.querySelector<HTMLImageElement>('dialog.lightbox img.lightbox-image')?.src ?? '';
        const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
        const image = entries.find((entry) => entry.name === src);
        const thumbnails = entries
          .filter((entry) => /[?&]w=\d+/.test(entry.name))
          .map((entry) => entry.startTime);
        return { alt, imageEnd: image?.responseEnd ?? -1, firstThumbnail: Math.min(...thumbnails) };
      }, linked);
      assert.ok(order.imageEnd > 0, 'the linked image was fetched');
      assert.ok(
        order.firstThumbnail >= order.imageEnd,
        `no thumbnail asked for before the linked image arrived (${JSON.stringify(order)})`,
      );
      console.log(`deep link at ${size.width} px: image shown ${ms} ms after navigation start`);
      await page.keyboard.press('Escape');
      // Then the list: its cards and thumbnails.
      await page.locator('article.work-card img').first().waitFor();
    }
  });

  testNoConsoleErrors(site);
});
