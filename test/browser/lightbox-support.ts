import assert from 'node:assert/strict';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { until } from './support.js';

/**
 * The WCAG 2 A and AA violations inside `selector` (an open dialog), as `rule: targets`. axe-core is
 * put into the page through the DevTools protocol: the site's CSP allows no inline script.
 */
export async function axeViolationsIn(page: Page, selector: string): Promise<string[]> {
  await page.evaluate(axe.source);
  return page.evaluate(async (within) => {
    const { axe: inPage } = window as unknown as { axe: typeof axe };
    const element = document.querySelector(within);
    if (!element) return [`nothing matches ${within}`];
    const result = await inPage.run(element, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
    return result.violations.map(
      (v) => `${v.id}: ${v.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
  }, selector);
}

/** A one-finger horizontal swipe at height `y`, as real touch input (Chromium makes its pointer events). */
export async function swipe(page: Page, y: number, fromX: number, toX: number): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const at = (x: number) => [{ x, y, id: 1 }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(fromX) });
  for (let step = 1; step <= 5; step++)
    await cdp.send('Input.dispatchTouchEvent', {
      type: 'touchMove',
      touchPoints: at(fromX + ((toX - fromX) * step) / 5),
    });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** In the open lightbox (Saved works), S stars the work shown (its card, `prompt`, too); S again removes it. */
export async function starredByS(page: Page, prompt: string): Promise<void> {
  const star = page.locator('dialog.lightbox .star-button');
  const card = page.locator('article.work-card', { hasText: prompt }).locator('.star-button');
  await page.keyboard.press('s');
  await until('starred by S', async () => (await star.getAttribute('aria-pressed')) === 'true');
  await until('the card shows it', async () => (await card.getAttribute('aria-pressed')) === 'true');
  await page.keyboard.press('s');
  await until('unstarred by S', async () => (await star.getAttribute('aria-pressed')) === 'false');
}

/** Makes images through the API (1K, one unless `body` says otherwise) and waits until each completed. */
export async function generateAndWait(
  api: (path: string, init?: RequestInit) => Promise<Response>,
  prompt: string,
  body: Record<string, unknown> = {},
): Promise<void> {
  const answer = await api('/api/v1/generate', {
    method: 'POST',
    body: JSON.stringify({ prompt, imageSize: '1K', count: 1, ...body }),
  });
  assert.equal(answer.status, 200, await answer.clone().text());
  for (const taskId of ((await answer.json()) as { task_ids: string[] }).task_ids) {
    for (;;) {
      const record = (await (await api(`/api/v1/tasks/${taskId}?wait=30`)).json()) as { status: string };
      if (record.status === 'completed') break;
      assert.notEqual(record.status, 'failed');
    }
  }
}
