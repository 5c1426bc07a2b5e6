import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';

const DIR = import.meta.dirname;
/** A route declaration that changes something: `.post(`, `.put(`, `.patch(`, `.delete(`. */
const WRITE = /\.(post|put|patch|delete)\(\s*'([^']+)'/g;

/** The names of the file's top-level functions whose text calls `audited(` (a route's helpers). */
function auditingHelpers(text: string): string[] {
  const tops = [...text.matchAll(/^(?:export )?(?:async )?function (\w+)/gm)];
  return tops
    .filter((top, i) => /\baudited\(/.test(text.slice(top.index, tops[i + 1]?.index ?? text.length)))
    .map((top) => top[1] ?? '');
}

/**
 * Issue 43: every change an operator makes is in the audit log. Each route of the admin API that
 * changes something records it (`audited(…)`, src/edges/admin/audit-trail.ts): the text from its
 * declaration to the next route's calls it, or a function of the file that does.
 */
test('every write route of the admin API records its change in the audit log', async () => {
  const files = (await readdir(DIR)).filter((name) => name.endsWith('-routes.ts'));
  const routes: string[] = [];
  for (const file of files) {
    const text = await readFile(join(DIR, file), 'utf8');
    const starts = [...text.matchAll(WRITE)];
    const records = new RegExp(`\\b(${['audited', ...auditingHelpers(text)].join('|')})\\(`);
    starts.forEach((match, i) => {
      const route = `${match[1]?.toUpperCase()} ${match[2]} (${file})`;
      routes.push(route);
      const body = text.slice(match.index, starts[i + 1]?.index ?? text.length);
      assert.match(body, records, `${route} records no audit event`);
    });
  }
  // The guard sees the routes it guards (a changed declaration style would make it vacuous).
  assert.ok(routes.length >= 20, routes.join('\n'));
  for (const expected of [
    'POST /queue/cancel',
    'PUT /catalog',
    'PATCH /policies/tiers/:tier',
    'DELETE /alerts/:id',
  ])
    assert.ok(
      routes.some((route) => route.startsWith(expected)),
      `${expected} among ${routes.join(', ')}`,
    );
});
