import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { until } from './support.js';
import { testNoConsoleErrors, websiteSession } from './website-session.js';

/** What the focused element is, and whether its ring is clear: 2px or more, 3:1 on its background, not clipped. */
function focusState(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return { name: '<body>', problems: ['nothing focused'] };
    const name = `${element.tagName.toLowerCase()} "${(element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 50)}"`;
    const style = getComputedStyle(element);
    const after = getComputedStyle(element, '::after');
    // The ring: the element's outline, or an inset ::after border (image buttons, whose box clips).
    const ringOnAfter = after.content !== 'none' && Number.parseFloat(after.borderTopWidth) >= 2;
    const width = ringOnAfter
      ? Number.parseFloat(after.borderTopWidth)
      : Number.parseFloat(style.outlineWidth);
    const color = ringOnAfter ? after.borderTopColor : style.outlineColor;
    const offset = ringOnAfter ? -width : Number.parseFloat(style.outlineOffset) || 0;
    const problems: string[] = [];
    if (!ringOnAfter && style.outlineStyle === 'none') problems.push('no outline');
    if (!(width >= 2)) problems.push(`ring ${width}px`);
    // The background it is drawn on: the first opaque background up the tree.
    let background = 'rgb(255, 255, 255)';
    for (let node: HTMLElement | null = element.parentElement; node; node = node.parentElement) {
      const fill = getComputedStyle(node).backgroundColor;
      if (!/rgba\(.*,\s*0\)$|transparent/.test(fill)) {
        background = fill;
        break;
      }
    }
    const [ringLight, backLight] = [color, background].map((value) => {
      const [r, g, b] = (value.match(/[\d.]+/g) ?? []).slice(0, 3).map((c) => {
        const s = Number(c) / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
    });
    const contrast =
      (Math.max(ringLight ?? 0, backLight ?? 0) + 0.05) / (Math.min(ringLight ?? 0, backLight ?? 0) + 0.05);
    if (contrast < 3) problems.push(`contrast ${contrast.toFixed(2)} (${color} on ${background})`);
    // Clipped: the ring's outer edge must lie inside every ancestor that hides its overflow.
    const rect = element.getBoundingClientRect();
    const reach = Math.max(0, offset + width);
    for (let node = element.parentElement; node; node = node.parentElement) {
      const overflow = getComputedStyle(node);
      if (!/hidden|clip/.test(overflow.overflowX + overflow.overflowY)) continue;
      const clip = node.getBoundingClientRect();
      if (
        rect.left - reach < clip.left - 0.5 ||
        rect.top - reach < clip.top - 0.5 ||
        rect.right + reach > clip.right + 0.5 ||
        rect.bottom + reach > clip.bottom + 0.5
      ) {
        problems.push(`clipped by ${node.tagName.toLowerCase()}.${node.className}`);
        break;
      }
    }
    return { name, problems };
  });
}

/**
 * Issue 30, defects 3-5, keyboard only where it is about focus: a clear, unclipped focus ring on
 * everything focusable (result images included) in both themes; after a delete, focus on the next
 * work (the heading when none is left); the delete confirmation opening on Cancel; a paste past the
 * prompt's limit cut at a word and said; short accessible names on cards of a long prompt; two
 * files dropped in Edit keep the first, and say so.
 */
describe('website keyboard and limits (Chromium, end to end)', () => {
  const site = websiteSession(() => ({ ATELIER_LOCAL_LATENCY_MS: '200' }));
  const { api, card, goTo, signIn } = site;
  let page: Page;
  before(() => {
    page = site.page;
  });
  const LONG = `a very long prompt ${'with many careful words about light and stone '.repeat(70)}`.trim();

  const generate = async (prompt: string) => {
    const answer = await api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ prompt, imageSize: '1K', count: 1 }),
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    const [taskId] = ((await answer.json()) as { task_ids: string[] }).task_ids;
    for (;;) {
      const record = (await (await api(`/api/v1/tasks/${taskId}?wait=30`)).json()) as { status: string };
      if (record.status === 'completed') return;
      assert.notEqual(record.status, 'failed');
    }
  };
  /** Presses Tab until the focused element matches `selector` (keyboard only: no click, no focus()). */
  const tabTo = async (selector: string) => {
    for (let i = 0; i < 120; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    }
    assert.fail(`Tab never reached ${selector}`);
  };
  const focused = () =>
    page.evaluate(
      () => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent,
    );

  test('sign in; three works, one with a prompt of 3,000 characters', async () => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto('/');
    await signIn();
    await page.getByRole('heading', { name: 'Create' }).waitFor();
    await generate('the first work');
    await generate('the second work');
    await generate(LONG);
    await card('the second work').locator('img').waitFor();
  });

  test('the focus ring on a result image in Create is drawn, inside its clipping box', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await tabTo('.task-visual .image-button');
    const button = page.locator(':focus');
    await until('the image loaded', () =>
      button.evaluate((b) => (b.querySelector('img') as HTMLImageElement).complete),
    );
    const box = await button.boundingBox();
    assert.ok(box);
    const shot = async () =>
      sharp(await page.screenshot({ clip: box }))
        .raw()
        .toBuffer({ resolveWithObject: true });
    const withRing = await shot();
    await page.keyboard.press('Shift+Tab');
    const without = await shot();
    // The band 3 px inside the box's edge: most of it changes colour when the image has focus.
    const { width, height, channels } = withRing.info;
    let band = 0;
    let changed = 0;
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        if (!(x < 3 || y < 3 || x >= width - 3 || y >= height - 3)) continue;
        band++;
        const i = (y * width + x) * channels;
        const diff = [0, 1, 2].reduce(
          (sum, c) => sum + Math.abs((withRing.data[i + c] ?? 0) - (without.data[i + c] ?? 0)),
          0,
        );
        if (diff > 60) changed++;
      }
    assert.ok(changed / band > 0.6, `${changed} of ${band} edge pixels changed`);
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`${scheme}: every focusable thing on Create, Saved works, Library and the lightbox has a clear ring`, async () => {
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      const problems: string[] = [];
      for (const [label, path] of [
        ['Create', '/'],
        ['Saved works', '/works'],
        ['Library', '/library'],
      ] as const) {
        await goTo(label, path);
        await page.locator('main img').first().waitFor();
        await page.evaluate(() => window.scrollTo(0, 0));
        const seen = new Set<string>();
        for (let i = 0; i < 60; i++) {
          await page.keyboard.press('Tab');
          const state = await focusState(page);
          if (state.name === '<body>') break; // past the page's last focusable element
          if (seen.has(state.name) && state.name.includes('Skip')) break; // round the page once
          seen.add(state.name);
          if (state.problems.length > 0)
            problems.push(`${label}: ${state.name}: ${state.problems.join(', ')}`);
        }
      }
      // The lightbox, opened from Saved works' first cover: each of its controls, round once.
      await goTo('Saved works', '/works');
      await page.locator('.work-cover').first().focus();
      await page.keyboard.press('Enter');
      await page.locator('dialog.lightbox').waitFor();
      const inLightbox = new Set<string>();
      // Forward from Next (where it opens) to the last control, then back from Next to the first.
      for (const key of ['Tab', 'Shift+Tab']) {
        await page.locator('dialog.lightbox .lightbox-nav.next').focus();
        for (let i = 0; i < 20; i++) {
          const state = await focusState(page);
          if (
            state.name === '<body>' ||
            !(await page.evaluate(() => !!document.activeElement?.closest('.lightbox')))
          )
            break;
          if (!inLightbox.has(state.name) && state.problems.length > 0)
            problems.push(`Lightbox: ${state.name}: ${state.problems.join(', ')}`);
          inLightbox.add(state.name);
          await page.keyboard.press(key);
        }
      }
      await page.keyboard.press('Escape');
      await page.locator('dialog.lightbox').waitFor({ state: 'detached' });
      assert.ok(inLightbox.size >= 12, `the lightbox's controls: ${[...inLightbox].join(' | ')}`);
      assert.deepEqual([...new Set(problems)], []);
    });
  }

  test('the delete confirmation opens on Cancel; after a delete focus goes to the next work, then the heading', async () => {
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
    await goTo('Saved works', '/works');
    await page.locator('.work-card').nth(2).waitFor();
    for (const [prompt, next] of [
      ['the second work', 'Open: the first work'],
      [LONG, 'Open: the first work'],
      ['the first work', 'Saved works'],
    ] as const) {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.getByRole('heading', { name: 'Saved works' }).waitFor();
      await tabTo(`[aria-label^="Delete: ${prompt.slice(0, 30)}"]`);
      await page.keyboard.press('Enter');
      await page.getByRole('dialog', { name: 'Delete this work?' }).waitFor();
      assert.equal(await focused(), 'Cancel', 'the confirmation starts on its safe answer');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'Delete');
      await page.keyboard.press('Enter');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      await until(`focus on ${next}`, async () => (await focused()) === next);
    }
  });

  test('cards of a long prompt: accessible names stay short (no whole prompt)', async () => {
    await generate(LONG);
    const tooLong = async (where: string) =>
      page.evaluate(
        ([scope, prompt]) =>
          [...document.querySelectorAll(`${scope} [aria-label], ${scope} button, ${scope} a`)]
            .map((e) => e.getAttribute('aria-label') ?? e.textContent ?? '')
            .filter((name) => name.length > 90 || name.includes(prompt.slice(0, 120))),
        [where, LONG] as const,
      );
    await goTo('Create', '/');
    await card('a very long prompt').first().locator('img').waitFor();
    assert.deepEqual(await tooLong('.task-grid'), []);
    await goTo('Saved works', '/works');
    await page.locator('.work-card').first().waitFor();
    assert.deepEqual(await tooLong('.works-grid'), []);
    await goTo('Library', '/library');
    await page.locator('.asset-card').first().waitFor();
    assert.deepEqual(await tooLong('.library-grid'), []);
    await page
      .getByRole('button', { name: /^Use as reference: a very long prompt with many careful words/ })
      .first()
      .waitFor();
  });

  test('a paste past 8,000 characters is cut at a word, with a counter and a message', async () => {
    await goTo('Create', '/');
    const prompt = page.getByRole('textbox', { name: 'Prompt', exact: true });
    await prompt.fill('');
    const pasted = 'the harbour at dawn, '.repeat(430).trim(); // 9,029 characters
    await prompt.evaluate((field, text) => {
      const transfer = new DataTransfer();
      transfer.setData('text/plain', text);
      field.dispatchEvent(
        new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }),
      );
    }, pasted);
    const alert = page.getByRole('alert').filter({ hasText: 'cut to fit' });
    await alert.waitFor();
    const value = await prompt.inputValue();
    assert.ok(value.length <= 8000 && value.length > 7900, `length ${value.length}`);
    assert.ok(pasted.startsWith(value), 'the start of the paste is kept');
    assert.match(pasted.charAt(value.length), /\s/, 'cut at a word boundary');
    assert.match((await alert.textContent()) ?? '', /8,000-character limit/);
    assert.match(
      (await page.locator(`[id="${await prompt.getAttribute('aria-describedby')}"]`).textContent()) ?? '',
      /\/ 8,000/,
    );
    await prompt.fill('');
  });

  test('two files dropped in Edit: the first is kept, and the page says the other was left out', async () => {
    await page.getByRole('radio', { name: 'Edit' }).check();
    const png = async (background: string) => [
      ...(await sharp({ create: { width: 48, height: 32, channels: 3, background } })
        .png()
        .toBuffer()),
    ];
    await page.locator('.dropzone').evaluate(
      (zone, [first, second]) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(first ?? [])], 'first.png', { type: 'image/png' }));
        transfer.items.add(new File([new Uint8Array(second ?? [])], 'second.png', { type: 'image/png' }));
        zone.dispatchEvent(
          new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }),
        );
      },
      [await png('#a33'), await png('#33a')],
    );
    await page.getByRole('img', { name: 'Reference: first.png' }).waitFor();
    const status = page.getByRole('status').filter({ hasText: 'Edit takes one image' });
    assert.match((await status.textContent()) ?? '', /kept first\.png, left out second\.png/);
    assert.equal(await page.locator('.ref img').count(), 1);
    assert.equal(await page.locator('.ref.pending').count(), 0, 'nothing else uploading');
  });

  testNoConsoleErrors(site);
});
