import assert from 'node:assert/strict';
import axe from 'axe-core';
import type { Frame, Page } from 'playwright-core';

/** The WCAG 2.0 and 2.1 rules at levels A and AA: what the issue asks the website to pass. */
export const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] as const;

/** One violation, as much as a person needs to find and fix it. */
export interface AxeViolation {
  id: string;
  impact: string | null | undefined;
  help: string;
  nodes: Array<{ target: string; summary: string }>;
}

/**
 * Runs axe-core in the page (or one of its frames) as it is now (an open dialog included) and
 * returns the WCAG 2 A/AA violations. axe is put into the page with `page.evaluate` (the DevTools protocol), so the site's
 * Content-Security-Policy, which refuses inline scripts, does not stand in the way.
 */
export async function axeViolations(page: Page | Frame): Promise<AxeViolation[]> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(axe.source);
  return page.evaluate(
    async (tags) => {
      const runner = (window as unknown as { axe: typeof import('axe-core') }).axe;
      const result = await runner.run(document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      });
      return result.violations.map((violation) => ({
        id: violation.id,
        impact: violation.impact,
        help: violation.help,
        nodes: violation.nodes.map((node) => ({
          target: node.target.map(String).join(' '),
          summary: node.failureSummary ?? '',
        })),
      }));
    },
    [...WCAG_AA_TAGS],
  );
}

/** Asserts the page (as it is now) has no WCAG 2 A/AA violation; `label` names the state in the message. */
export async function expectNoAxeViolations(page: Page | Frame, label: string): Promise<void> {
  const violations = await axeViolations(page);
  const report = violations
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help}\n${v.nodes
          .slice(0, 5)
          .map((n) => `    ${n.target}: ${n.summary.replace(/\s+/g, ' ')}`)
          .join('\n')}`,
    )
    .join('\n  ');
  assert.equal(violations.length, 0, `${label}: ${violations.length} axe violation(s)\n  ${report}`);
}
