import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolationsIn, generateAndWait } from './lightbox-support.js';
import { screenshot, until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

const WIDE = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const FIRST = 'a lighthouse on a cliff at noon';

/**
 * Issue 44, "Refine" in the website: the lightbox makes the next version of the work it shows from
 * a short instruction (N opens the field, Enter makes it, Esc closes it), and shows the work's
 * versions as a strip (V, then the arrows walk it; the one shown is aria-current). Keyboard only once
 * the lightbox is open, at 1440×900, then at 390×844 in the dark theme; axe finds nothing.
 */
describe('website refine and the versions strip (Chromium, end to end)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '50' }));
  const { api, goTo, signIn } = site;
  let page: Page;
  before(() => {
    page = site.page;
  });
  const lightbox = () => page.locator('dialog.lightbox');
  const strip = () => lightbox().locator('nav.versions button.version');
  const shown = () => lightbox().locator('img.lightbox-image').getAttribute('alt');
  const counter = () => lightbox().getByTestId('lightbox-counter').textContent();
  /** The strip's versions as their names, the current one starred. */
  const versions = () =>
    strip().evaluateAll((buttons) =>
      buttons.map((b) => `${b.getAttribute('aria-current') === 'true' ? '*' : ''}${b.getAttribute('title')}`),
    );
  const focused = () =>
    page.evaluate(() => {
      const element = document.activeElement;
      if (element instanceof HTMLInputElement) return `input ${element.labels?.[0]?.textContent ?? ''}`;
      return `${element?.tagName} ${element?.getAttribute('title') ?? element?.textContent?.trim()}`;
    });

  /** N, the instruction, Enter: waits until the strip lists `expected` with the new one current. */
  async function refine(instruction: string, expected: string[]) {
    await page.keyboard.press('n');
    await until('the refine field has focus', async () =>
      (await focused()).startsWith('input What should change'),
    );
    await page.keyboard.type(instruction);
    await page.keyboard.press('Enter');
    await until(`the strip: ${expected.join(' | ')}`, async () => {
      const now = await versions();
      return now.length === expected.length && now.every((name, i) => name === expected[i]);
    });
    assert.equal(await shown(), expected.at(-1)?.slice(1), 'the new version is shown');
    await until('the new image loaded', () =>
      lightbox()
        .locator('img.lightbox-image')
        .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
    );
    assert.match(await focused(), /^BUTTON Refine/, 'focus back on Refine');
    // Its details read with its work: the image's size in pixels.
    await until('the version’s size', async () =>
      /\d+ × \d+ px/.test((await lightbox().locator('.lightbox-details').textContent()) ?? ''),
    );
  }

  test('sign in and make a work', async () => {
    await page.goto('/');
    await signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    await generateAndWait(api, FIRST, { aspect: '4:3' });
  });

  test('1440: N, an instruction and Enter make version 2, then 3; the strip shows 2 then 3, the new one current', async () => {
    await page.setViewportSize(WIDE);
    await goTo('Create', '/');
    const open = page.getByRole('button', { name: `Open image: ${FIRST}` });
    await open.locator('img').waitFor();
    await open.focus();
    await page.keyboard.press('Enter');
    await lightbox().waitFor();
    await lightbox()
      .getByRole('button', { name: /Refine/ })
      .waitFor();
    assert.equal(await strip().count(), 0, 'a lone work has no strip');

    await refine('make the sky darker', [`Version 1: ${FIRST}`, '*Version 2: make the sky darker']);
    // The new version is a card in Create like any generation from the website.
    await page.locator('article.task-card', { hasText: 'make the sky darker' }).waitFor();
    await refine('add a small boat', [
      `Version 1: ${FIRST}`,
      'Version 2: make the sky darker',
      '*Version 3: add a small boat',
    ]);
    assert.deepEqual(await axeViolationsIn(page, 'dialog.lightbox'), [], 'axe, the lightbox at 1440');
    await screenshot(page, 'refine-1440');

    // The server holds the chain: each version names its parent and its instruction.
    const history = (await (await api('/api/v1/history?limit=10')).json()) as {
      items: Array<{ id: string; prompt: string }>;
    };
    const first = history.items.find((item) => item.prompt === FIRST);
    assert.ok(first);
    const chain = (await (await api(`/api/v1/history/${first.id}/versions`)).json()) as {
      versions: Array<{ id: string; parentId?: string; instruction?: string; aspect: string }>;
    };
    assert.deepEqual(
      chain.versions.map((v) => [v.instruction, v.aspect]),
      [
        [undefined, '4:3'],
        ['make the sky darker', '4:3'],
        ['add a small boat', '4:3'],
      ],
    );
    assert.equal(chain.versions[2]?.parentId, chain.versions[1]?.id);
  });

  test('1440: Esc closes the field, not the lightbox; V and the arrows walk the strip, Enter shows a version', async () => {
    await page.keyboard.press('n');
    await until('the field', async () => (await focused()).startsWith('input'));
    await page.keyboard.press('Escape');
    await until('the field closed', async () => (await lightbox().locator('.refine-form').count()) === 0);
    assert.ok(await lightbox().isVisible(), 'the lightbox stays open');
    assert.match(await focused(), /^BUTTON Refine/);

    const place = await counter();
    await page.keyboard.press('v');
    assert.equal(await focused(), 'BUTTON Version 3: add a small boat');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await focused(), 'BUTTON Version 2: make the sky darker');
    await page.keyboard.press('Home');
    assert.equal(await focused(), `BUTTON Version 1: ${FIRST}`);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await until('version 2 shown', async () => (await shown()) === 'Version 2: make the sky darker');
    assert.equal((await versions())[1], '*Version 2: make the sky darker');
    assert.equal(await counter(), place, 'the strip’s arrows do not move through the list');
    await page.keyboard.press('Home');
    await page.keyboard.press('Enter');
    await until('the first version shown', async () => (await shown()) === FIRST);
    assert.equal((await versions())[0], `*Version 1: ${FIRST}`);
    await page.keyboard.press('Escape');
    await until('the lightbox closed', async () => (await lightbox().count()) === 0);
  });

  test('390, dark: the strip fits, a tap shows a version, refining it branches; axe finds nothing', async () => {
    await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: 'dark' });
    const open = page.getByRole('button', { name: 'Open image: add a small boat' });
    await open.locator('img').waitFor();
    await open.click();
    await lightbox().waitFor();
    await until('the strip of three', async () => (await versions()).length === 3);
    assert.equal((await versions())[2], '*Version 3: add a small boat');
    await strip().nth(0).click();
    await until('version 1 shown', async () => (await shown()) === `Version 1: ${FIRST}`);
    await lightbox()
      .getByRole('button', { name: /Refine/ })
      .focus();
    await refine('in winter', [
      `Version 1: ${FIRST}`,
      'Version 2: make the sky darker',
      'Version 3: add a small boat',
      '*Version 4: in winter',
    ]);
    // The branch refines version 1, not the version the lightbox was opened on.
    const fourth = await strip().nth(3).getAttribute('data-version-id');
    const chain = (await (await api(`/api/v1/history/${fourth}/versions`)).json()) as {
      versions: Array<{ id: string; parentId?: string }>;
    };
    assert.equal(chain.versions.at(-1)?.parentId, chain.versions[0]?.id);
    // The strip scrolls inside the panel; the page does not scroll sideways.
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), PHONE.width);
    const inside = await lightbox()
      .locator('nav.versions')
      .evaluate((nav) => nav.getBoundingClientRect().right <= window.innerWidth);
    assert.ok(inside, 'the strip stays on screen');
    assert.deepEqual(await axeViolationsIn(page, 'dialog.lightbox'), [], 'axe, 390 dark');
    await screenshot(page, 'refine-390-dark');
    await page.keyboard.press('Escape');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('Create: a card’s Refine opens the lightbox on its image with the field focused', async () => {
    await page.setViewportSize(WIDE);
    await page
      .locator('article.task-card', { hasText: 'in winter' })
      .getByRole('button', { name: 'Refine' })
      .click();
    await lightbox().waitFor();
    await until('the field has focus', async () => (await focused()).startsWith('input What should change'));
    assert.equal(await shown(), 'in winter');
    assert.equal((await versions()).at(-1), '*Version 4: in winter');
    await page.keyboard.press('Escape');
    await until('the field closed', async () => (await lightbox().locator('.refine-form').count()) === 0);
    assert.match(await focused(), /^BUTTON Refine/);
    await page.keyboard.press('Escape');
    await until('the lightbox closed', async () => (await lightbox().count()) === 0);
  });

  testNoConsoleErrors(site);
});
