import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const moduleUrl = new URL('./log-destination.ts', import.meta.url).href;

/**
 * Runs `body` in a fresh process with `destination` open on a temp file (`file`); returns the
 * file's lines and what the process printed.
 */
function run(body: string): { lines: string[]; printed: string } {
  const file = join(mkdtempSync(join(tmpdir(), 'atelier-log-')), 'out.log');
  const script = `
    import { openSync, readFileSync } from 'node:fs';
    import { createLogDestination } from ${JSON.stringify(moduleUrl)};
    const file = ${JSON.stringify(file)};
    const destination = createLogDestination(openSync(file, 'a'));
    ${body}
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  return { lines: readFileSync(file, 'utf8').split('\n').filter(Boolean), printed: child.stdout };
}
const linesWritten = (body: string) => run(body).lines;

const numbered = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `line ${from + i}`);

test('lines of many turns arrive whole and in order', () => {
  const lines = linesWritten(`
    let n = 0;
    for (let turn = 0; turn < 50; turn++) {
      for (let i = 0; i < 200; i++) destination.write('line ' + n++ + '\\n');
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => destination.flush(resolve));
  `);
  assert.deepEqual(lines, numbered(0, 10_000));
});

test('process.exit right after writing loses nothing (the turn never ends)', () => {
  const lines = linesWritten(`
    for (let i = 0; i < 5000; i++) destination.write('line ' + i + '\\n');
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 5000; i < 6000; i++) destination.write('line ' + i + '\\n');
    process.exit(0);
  `);
  assert.deepEqual(lines, numbered(0, 6000));
});

test('flushSync writes what is pending before it returns (a fatal line before a crash)', () => {
  const { printed } = run(`
    destination.write('line 0\\n');
    destination.write('line 1\\n');
    destination.flushSync();
    process.stdout.write(readFileSync(file, 'utf8'));
  `);
  assert.deepEqual(printed.split('\n').filter(Boolean), numbered(0, 2));
});
