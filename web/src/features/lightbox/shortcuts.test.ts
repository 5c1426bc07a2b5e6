import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { handlerFor, type LightboxCommand, SHORTCUTS } from './shortcuts.js';

/** The keys of each row of docs/website.md's table of the lightbox's shortcuts (`| Keys | Action |`). */
function documentedKeys(): string[][] {
  const doc = readFileSync(new URL('../../../../docs/website.md', import.meta.url), 'utf8');
  const lines = doc.split('\n');
  const start = lines.findIndex((line) => /^\|\s*Keys\s*\|\s*Action\s*\|/.test(line));
  assert.ok(start >= 0, 'docs/website.md has a table of the lightbox shortcuts');
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const keysCell = line.split('|')[1] ?? '';
    rows.push([...keysCell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string));
  }
  return rows;
}

describe('the lightbox shortcuts', () => {
  test("docs/website.md lists the table's keys, row by row, in its order", () => {
    assert.deepEqual(
      documentedKeys(),
      SHORTCUTS.map(({ keys }) => [...keys]),
    );
  });

  test('every key the list shows runs its row’s command', () => {
    const ran: string[] = [];
    const all: Partial<Record<LightboxCommand, (key: string) => void>> = {};
    for (const { command } of SHORTCUTS) all[command] = (key) => ran.push(`${command}:${key}`);
    handlerFor('Z', all)?.();
    handlerFor('z', all)?.();
    handlerFor('?', all)?.();
    handlerFor('ArrowLeft', all)?.();
    handlerFor('Backspace', all)?.();
    assert.deepEqual(ran, ['zoom:z', 'zoom:z', 'shortcuts:?', 'step:ArrowLeft', 'delete:Backspace']);
  });

  test('a key falls to the next row when a command does nothing now (← and → pan while zoomed)', () => {
    const ran: string[] = [];
    const handler = handlerFor('ArrowRight', { step: undefined, pan: (key) => ran.push(`pan:${key}`) });
    handler?.();
    assert.deepEqual(ran, ['pan:ArrowRight']);
    assert.equal(handlerFor('ArrowUp', { step: () => ran.push('step') }), undefined);
    assert.equal(handlerFor('x', {}), undefined);
  });

  test('Shift and a letter: the row listing `Shift+…`, else the letter itself (Shift+Z zooms)', () => {
    const ran: string[] = [];
    const all: Partial<Record<LightboxCommand, (key: string) => void>> = {};
    for (const { command } of SHORTCUTS) all[command] = (key) => ran.push(`${command}:${key}`);
    handlerFor('U', all, true)?.();
    handlerFor('u', all)?.();
    handlerFor('Y', all, true)?.();
    handlerFor('R', all, true)?.();
    handlerFor('r', all)?.();
    handlerFor('Z', all, true)?.();
    assert.deepEqual(ran, [
      'upscale4:shift+u',
      'upscale:u',
      'varyStrong:shift+y',
      'reroll:shift+r',
      'reuse:r',
      'zoom:z',
    ]);
    // ×4 not configured: Shift+U does nothing (not ×2 instead).
    assert.equal(handlerFor('U', { upscale: () => ran.push('x2') }, true), undefined);
  });
});
