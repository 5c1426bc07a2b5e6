import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { seedCopiesOfWork } from './seed-works.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const WORKS = 5000;
const WIDE = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

/** Saved works and the Library: their grid, a card, and the page's URL. */
const GALLERIES = [
  { name: 'Saved works', path: '/works', grid: '.works-grid', card: 'article.work-card' },
  { name: 'Library', path: '/library', grid: '.library-grid', card: 'li.asset-card' },
] as const;

/**
 * Issue 30, "Scale": Saved works and the Library stay smooth at 5,000 works. The grids render only
 * the rows near the viewport (web/src/lib/virtual-rows.ts): scrolled through all 5,000 (every page
 * loaded by the infinite scroll) at 1440×900, then up and down again at 390×844, the page's DOM
 * keeps about the size it has at the top (within ±25 %) while new cards keep appearing.
 */
describe('website at 5,000 works (Chromium): virtualised Saved works and Library', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '0' }));
  let page: Page;
  before(() => {
    page = site.page;
  });

  const domSize = () => page.evaluate(() => document.getElementsByTagName('*').length);
  const gridState = (grid: string) =>
    page.evaluate((selector) => {
      const element = document.querySelector<HTMLElement>(selector);
      return {
        start: Number(element?.dataset.virtualStart ?? -1),
        end: Number(element?.dataset.virtualEnd ?? -1),
        total: Number(element?.dataset.virtualTotal ?? -1),
        cards: element?.children.length ?? 0,
      };
    }, grid);
  /** Waits (frame by frame) until the grid's state differs from `before`. */
  const gridMoved = (grid: string, before: { start: number; end: number; total: number }) =>
    page.waitForFunction(
      ({ selector, was }) => {
        const element = document.querySelector<HTMLElement>(selector);
        const now = element?.dataset;
        return (
          now !== undefined &&
          (Number(now.virtualStart) !== was.start ||
            Number(now.virtualEnd) !== was.end ||
            Number(now.virtualTotal) !== was.total)
        );
      },
      { selector: grid, was: before },
      { polling: 'raf', timeout: 15_000 },
    );
  const assertAboutTheSame = (where: string, samples: number[], top: number) => {
    const outside = samples.filter((n) => n < top * 0.75 || n > top * 1.25);
    assert.deepEqual(outside, [], `${where}: DOM sizes outside ±25 % of ${top} at the top`);
  };

  test(`seed ${WORKS} works (one made by the API, copied in the store)`, async () => {
    const began = performance.now();
    await page.setViewportSize(WIDE);
    await page.goto('/');
    await site.signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    const answer = await site.api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ prompt: 'the first work', imageSize: '1K', count: 1 }),
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    const [taskId] = ((await answer.json()) as { task_ids: string[] }).task_ids;
    for (;;) {
      const record = (await (await site.api(`/api/v1/tasks/${taskId}?wait=30`)).json()) as { status: string };
      if (record.status === 'completed') break;
      assert.notEqual(record.status, 'failed');
    }
    const history = (await (await site.api('/api/v1/history?limit=1')).json()) as {
      items: Array<{ id: string }>;
    };
    await seedCopiesOfWork(site.server.testApp.core, history.items[0]?.id ?? '', WORKS - 1);
    const saved = await site.server.testApp.core.db
      .selectFrom('generations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(saved.n), WORKS);
    console.log(`seeded ${WORKS} works in ${Math.round(performance.now() - began)} ms`);
  });

  for (const gallery of GALLERIES) {
    test(`${gallery.name}: scrolled through all ${WORKS} at 1440 px, then at 390 px, the DOM keeps its size`, async () => {
      const began = performance.now();
      await page.setViewportSize(WIDE);
      await site.goTo(gallery.name, gallery.path);
      await page.locator(gallery.card).first().waitFor();
      const samples: number[] = [];
      let lastEnd = 0;
      // Down to the end: each jump to the bottom loads the next page (infinite scroll) and slides the window.
      for (
        let state = await gridState(gallery.grid);
        state.end < WORKS;
        state = await gridState(gallery.grid)
      ) {
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        await gridMoved(gallery.grid, state);
        const now = await gridState(gallery.grid);
        samples.push(await domSize());
        assert.ok(now.end >= lastEnd, 'the window moves on');
        assert.ok(now.cards > 0 && now.cards === now.end - now.start, 'the rendered cards are the window');
        lastEnd = now.end;
      }
      const last = await page
        .locator(gallery.card)
        .last()
        .getAttribute(gallery.name === 'Library' ? 'data-asset-id' : 'data-work-id');
      assert.ok(last?.endsWith('seed004998'), `the oldest work is shown at the end: ${last}`);
      // Back at the top with everything loaded: the reference size.
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForFunction(
        (selector) => document.querySelector<HTMLElement>(selector)?.dataset.virtualStart === '0',
        gallery.grid,
        { polling: 'raf' },
      );
      const top = await domSize();
      assertAboutTheSame(`${gallery.name} at 1440`, samples, top);
      assert.ok(samples.length > 100, `scrolled in ${samples.length} steps`);

      // At 390 px: through the whole list again, a few screens at a time.
      // The window at the top re-measured for the phone's columns (its end moves), then settled.
      const wideTop = await gridState(gallery.grid);
      await page.setViewportSize(PHONE);
      await page.evaluate(() => window.scrollTo(0, 0));
      await gridMoved(gallery.grid, wideTop);
      await page.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(null)))),
      );
      const phoneTop = await domSize();
      const phoneSamples: number[] = [];
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      const step = Math.ceil(height / 60);
      let lastStart = -1;
      for (let y = step; y < height; y += step) {
        const state = await gridState(gallery.grid);
        await page.evaluate((to) => window.scrollTo(0, to), y);
        await gridMoved(gallery.grid, state).catch(() => undefined);
        const now = await gridState(gallery.grid);
        assert.ok(now.start >= lastStart, 'the window moves down');
        lastStart = now.start;
        phoneSamples.push(await domSize());
      }
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForFunction(
        ({ selector, works }) =>
          document.querySelector<HTMLElement>(selector)?.dataset.virtualEnd === String(works),
        { selector: gallery.grid, works: WORKS },
        { polling: 'raf' },
      );
      phoneSamples.push(await domSize());
      assertAboutTheSame(`${gallery.name} at 390`, phoneSamples, phoneTop);
      console.log(
        `${gallery.name}: ${samples.length} steps at 1440 px (DOM ${Math.min(...samples)}–${Math.max(...samples)}, top ${top}), 60 at 390 px (DOM ${Math.min(...phoneSamples)}–${Math.max(...phoneSamples)}, top ${phoneTop}), ${Math.round(performance.now() - began)} ms`,
      );
    });
  }

  test('keyboard: Tab from the last rendered card reaches the next one (the window follows focus), at 1440 and 390 px', async () => {
    for (const size of [WIDE, PHONE]) {
      await page.setViewportSize(size);
      await site.goTo('Saved works', '/works');
      await page.locator('article.work-card').first().waitFor();
      for (let step = 0; step < 3; step++) {
        const before = await gridState('.works-grid');
        const last = page.locator('article.work-card').last();
        const lastId = (await last.getAttribute('data-work-id')) ?? '';
        // The card's last control; focusing it scrolls it into view and the window slides on.
        await last.locator('button, a[href], input').last().focus();
        await gridMoved('.works-grid', before);
        await page.keyboard.press('Tab');
        const focusedId = await page.evaluate(
          () => document.activeElement?.closest('[data-work-id]')?.getAttribute('data-work-id') ?? '',
        );
        const seq = (id: string) => Number(/seed(\d+)$/.exec(id)?.[1] ?? -2);
        assert.equal(
          seq(focusedId),
          seq(lastId) + 1,
          `Tab went from ${lastId} to the next work (${focusedId})`,
        );
      }
    }
  });

  test('the lightbox walks past the rendered window; on close, focus goes to the card of the image shown', async () => {
    await page.setViewportSize(WIDE);
    await page.goto('/works'); // a fresh list: its first page only
    await page.locator('article.work-card .work-cover').first().focus();
    await page.keyboard.press('Enter');
    const lightbox = page.locator('dialog.lightbox');
    await lightbox.waitFor();
    const shown = (prompt: string) =>
      page
        .waitForFunction(
          (alt) => document.querySelector('dialog.lightbox img.lightbox-image')?.getAttribute('alt') === alt,
          prompt,
        )
        .catch(async () => {
          const alt = await lightbox.locator('img.lightbox-image').getAttribute('alt');
          const counter = await lightbox.getByTestId('lightbox-counter').textContent();
          assert.fail(`expected "${prompt}", the lightbox shows "${alt}" (${counter})`);
        });
    // End: the last loaded work; →: the next page loads; three pages in (the 72nd work).
    for (const [key, prompt] of [
      ['End', 'seeded work 23'],
      ['ArrowRight', 'seeded work 24'],
      ['End', 'seeded work 47'],
      ['ArrowRight', 'seeded work 48'],
      ['End', 'seeded work 71'],
    ] as const) {
      await page.keyboard.press(key);
      await shown(prompt);
    }
    const grid = await gridState('.works-grid');
    assert.ok(grid.end <= 71, `the 72nd card is outside the window (${grid.start}–${grid.end})`);
    await page.keyboard.press('Escape');
    await lightbox.waitFor({ state: 'detached' });
    await page.waitForFunction(
      () =>
        document.activeElement?.closest('[data-work-id]')?.getAttribute('data-work-id') === 'gen_seed000070',
    );
  });

  testNoConsoleErrors(site);
});
