import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

// The structure, held: docs/architecture.md's two tables are the rule, read from the document itself,
// so the code and the picture cannot drift apart. The wings table orders src/'s wings (base, infra,
// capabilities, use-cases, edges, then the composition root): a folder may import any folder of a
// wing below its own. The folders table says, for each folder, what it may import inside its own wing
// (and the rare stated exception up the wings); it says what may be, not only what is. There are no
// import cycles, type imports included; no edge imports another edge; nothing shipped imports a test
// or a fake; unit tests beside the code build no core. A change of structure is a change of those
// tables first.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WINGS_START = '<!-- wings:begin -->';
const WINGS_END = '<!-- wings:end -->';
const TABLE_START = '<!-- structure:begin -->';
const TABLE_END = '<!-- structure:end -->';
/** The wing of the faces callers see. */
const EDGE_WING = 'edges';
/**
 * Folders of the edges wing that are kits the faces share, not faces: the HTTP plumbing, the typed
 * client of /api/v1 (the MCP server speaks through it) and the curation routes both the API and the
 * website mount. Every other folder of the wing is an edge, found on disk, so a new one is guarded.
 */
const EDGE_KITS = ['http', 'client', 'curation-routes'];
/** The wings whose folders show one face: other folders import only their `index.ts`. */
const FACED_WINGS = ['capabilities', 'use-cases'];
/** The composition root: the files directly in src/ (core, app, server, serve). */
const ROOT_FILES = 'src/*.ts';
const MAX_LINES = 400;
/** The longest function body (lines), outside the tests: Biome's `noExcessiveLinesPerFunction` in biome.json. */
const MAX_FUNCTION_LINES = 80;
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome');

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(join(ROOT, dir))) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) walk(path, keep, out);
    else if (keep(path)) out.push(path);
  }
  return out;
}

const isSource = (path: string) => /\.(ts|tsx)$/.test(path) && !path.endsWith('.d.ts');
const isTest = (path: string) => /\.test\.tsx?$/.test(path);
const sources = [...walk('src', isSource), ...walk(join('web', 'src'), isSource)];
const shipped = sources.filter((path) => !isTest(path));
const posix = (path: string) => path.split(sep).join('/');

/**
 * The folder a file belongs to, as the tables name it: `src/<wing>/<folder>`, the composition root
 * (`src/*.ts`), or in the React app `web/src/features/<feature>`, `web/src/ui` or `web/src`.
 */
function folderOf(path: string): string {
  const parts = posix(path).split('/');
  if (parts[0] === 'web') {
    if (parts[2] === 'features' && parts.length > 4) return parts.slice(0, 4).join('/');
    if (parts[2] === 'ui' && parts.length > 3) return 'web/src/ui';
    return 'web/src';
  }
  return parts.length <= 2 ? ROOT_FILES : parts.slice(0, 3).join('/');
}

/** The wing of a folder of src/ (`root` for the composition root, `web` for the React app). */
function wingOf(folder: string): string {
  if (folder === ROOT_FILES) return 'root';
  if (folder.startsWith('web/')) return 'web';
  return folder.split('/')[1] as string;
}

/** The project files `path` imports (relative specifiers, resolved; packages left out). */
function importsOf(path: string): string[] {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = normalize(join(dirname(path), match[1] as string)).replace(/\.js$/, '');
    for (const candidate of [`${target}.ts`, `${target}.tsx`, join(target, 'index.ts'), target]) {
      try {
        if (statSync(join(ROOT, candidate)).isFile()) {
          found.push(candidate);
          break;
        }
      } catch {
        // not this candidate
      }
    }
  }
  return found;
}

/** The rows of a table of docs/architecture.md between two markers: first cell's name → the other cells' names. */
function readRows(start: string, end: string): Map<string, string[][]> {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  assert.ok(from >= 0 && to > from, `docs/architecture.md holds a table between ${start} and ${end}`);
  const rows = new Map<string, string[][]>();
  for (const line of doc.slice(from, to).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 5 || !cells[1]?.startsWith('`')) continue;
    const names = (cell: string) =>
      [...cell.matchAll(/`([^`]+)`/g)].map((m) => (m[1] as string).replace(/\/$/, ''));
    rows.set(names(cells[1])[0] as string, cells.slice(2).map(names));
  }
  return rows;
}

/** The wings, lowest first: wing → the wings it may import. */
const wings = new Map(
  [...readRows(WINGS_START, WINGS_END)].map(([wing, cells]) => [
    wing.replace(/^src\//, ''),
    (cells[1] ?? []).map((name) => name.replace(/^src\//, '')),
  ]),
);
const wingNames = [...wings.keys()];
/** The folders: folder → what it may import in its own wing, and the exceptions up the wings. */
const table = new Map(
  [...readRows(TABLE_START, TABLE_END)].map(([folder, cells]) => [
    folder,
    { inWing: cells[1] ?? [], up: cells[2] ?? [] },
  ]),
);
const edgeFolders = [...new Set(shipped.map(folderOf))].filter(
  (folder) => wingOf(folder) === EDGE_WING && !EDGE_KITS.includes(folder.split('/')[2] as string),
);

/** A wing's height: the composition root is above every wing. */
const rank = (wing: string) => (wing === 'root' ? wingNames.length : wingNames.indexOf(wing));

/** Whether the tables let `from` import `to`. */
function allowed(from: string, to: string): boolean {
  const row = table.get(from);
  if (row?.inWing.includes(to) || row?.up.includes(to)) return true;
  const [a, b] = [wingOf(from), wingOf(to)];
  if (a === 'web' || b === 'web') return false;
  if (a === 'root') return true;
  return wings.get(a)?.includes(b) ?? false;
}

const graph = new Map(shipped.map((path) => [path, importsOf(path)]));
/** Every file of src/ and web/src with its imports, the unit tests beside the code included. */
const graphWithTests = new Map(sources.map((path) => [path, importsOf(path)]));

describe('architecture (docs/architecture.md holds the enforced tables)', () => {
  test('the wings are ordered: each imports only wings listed before it', () => {
    assert.deepEqual(wingNames, ['base', 'infra', 'capabilities', 'use-cases', 'edges']);
    wingNames.forEach((wing, i) => {
      assert.deepEqual(wings.get(wing), wingNames.slice(0, i), `${wing} imports exactly the wings below it`);
    });
  });

  test('the folders table names every folder of src/ and web/src, and only those', () => {
    const folders = new Set(shipped.map(folderOf));
    assert.deepEqual([...table.keys()].sort(), [...folders].sort());
    const stray = walk('src', isSource).filter((path) => {
      const parts = posix(path).split('/');
      return parts.length > 2 && !wingNames.includes(parts[1] as string);
    });
    assert.deepEqual(stray, [], 'every folder of src/ lives in a wing');
  });

  test('the folders table keeps each row in its wing; going up the wings is a stated exception', () => {
    for (const [folder, { inWing, up }] of table) {
      const wing = wingOf(folder);
      assert.deepEqual(
        inWing.filter((to) => wingOf(to) !== wing),
        [],
        `${folder}: its third cell names its own wing only`,
      );
      if (wing === 'web') continue;
      const below = (to: string) => rank(wingOf(to)) <= rank(wing);
      assert.deepEqual(up.filter(below), [], `${folder}: its exceptions point up the wings`);
    }
  });

  test('every import between folders is one the tables allow', () => {
    const breaches: string[] = [];
    for (const [path, targets] of graph) {
      const from = folderOf(path);
      for (const target of targets) {
        const to = folderOf(target);
        if (to !== from && !allowed(from, to)) breaches.push(`${path} → ${target} (${from} → ${to})`);
      }
    }
    assert.deepEqual(breaches, []);
  });

  test('a capability or use case is entered through its index.ts only (no deeper import from outside)', () => {
    const faced = (folder: string) => FACED_WINGS.includes(wingOf(folder));
    const deep: string[] = [];
    for (const [path, targets] of graphWithTests) {
      for (const target of targets) {
        const to = folderOf(target);
        if (faced(to) && folderOf(path) !== to && posix(target) !== `${to}/index.ts`)
          deep.push(`${path} → ${target}`);
      }
    }
    assert.deepEqual(deep, []);
    const inside = [...graph].flatMap(([path, targets]) =>
      targets
        .filter((t) => faced(folderOf(path)) && posix(t) === `${folderOf(path)}/index.ts`)
        .map((t) => `${path} → ${t}`),
    );
    assert.deepEqual(inside, [], 'inside a capability, files import each other, never their own face');
  });

  test('no edge may import another edge (every edge folder on disk is checked)', () => {
    assert.ok(edgeFolders.includes('src/edges/gemini-compat') && edgeFolders.includes('src/edges/oauth'));
    for (const edge of edgeFolders) {
      const others = edgeFolders.filter((other) => other !== edge && allowed(edge, other));
      assert.deepEqual(others, [], `${edge} may not import another edge`);
    }
  });

  test('the vocabulary imports nothing; the contract and the store only the base wing', () => {
    assert.deepEqual(
      table.get('src/base/domain')?.inWing,
      [],
      'the vocabulary imports nothing of the project',
    );
    for (const low of ['src/base/contract', 'src/infra/store']) {
      const row = table.get(low);
      assert.deepEqual(
        [...(row?.inWing ?? []), ...(row?.up ?? [])].filter((to) => wingOf(to) !== 'base'),
        [],
        `${low} imports only the base wing`,
      );
    }
  });

  test('inside each wing the folders table has no cycle', () => {
    const seen = new Map<string, 'open' | 'done'>();
    const visit = (folder: string, path: string[]): void => {
      if (seen.get(folder) === 'done') return;
      assert.notEqual(seen.get(folder), 'open', `the table allows a cycle: ${[...path, folder].join(' → ')}`);
      seen.set(folder, 'open');
      for (const to of table.get(folder)?.inWing ?? []) visit(to, [...path, folder]);
      seen.set(folder, 'done');
    };
    for (const folder of table.keys()) visit(folder, []);
  });

  test('no import cycles (type imports included)', () => {
    // Tarjan's strongly connected components over the file graph; any component of two or more files
    // (or a file importing itself) is a cycle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const onStack = new Set<string>();
    const stack: string[] = [];
    const cycles: string[][] = [];
    let next = 0;
    const visit = (node: string) => {
      index.set(node, next);
      low.set(node, next);
      next++;
      stack.push(node);
      onStack.add(node);
      for (const target of graph.get(node) ?? []) {
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          visit(target);
          low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
        } else if (onStack.has(target))
          low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
      if (low.get(node) === index.get(node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1 || graph.get(node)?.includes(node)) cycles.push(component.sort());
      }
    };
    for (const node of graph.keys()) if (!index.has(node)) visit(node);
    assert.deepEqual(cycles, []);
  });

  test('nothing shipped imports a test, a fake or a test helper; no test code lives in src/', () => {
    const outside = [...graph].flatMap(([path, targets]) =>
      targets
        .filter((t) => !t.startsWith(`src${sep}`) && !t.startsWith(join('web', 'src')))
        .map((t) => `${path} → ${t}`),
    );
    assert.deepEqual(outside, []);
    assert.deepEqual(
      walk('src', (path) => path.split(sep).includes('testing')),
      [],
      'fakes live under test/fakes, out of dist/ and the image',
    );
  });

  test('unit tests beside the code build no core and open no store (those live under test/)', () => {
    const wholeCore =
      /\b(createCore|createTestApp|startTestServer|openDatabase|testDatabaseEnv|freshTestDataEnv)\(/;
    const offenders = walk('src', isTest).filter((path) => {
      const text = readFileSync(join(ROOT, path), 'utf8');
      return wholeCore.test(text) || /from ['"][./]+test\/support\//.test(text);
    });
    assert.deepEqual(offenders, []);
  });

  test(`no function body over ${MAX_FUNCTION_LINES} lines outside the tests (Biome's rule, run here)`, () => {
    const config = JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8'));
    const rule = config.linter.rules.complexity.noExcessiveLinesPerFunction;
    assert.equal(rule.level, 'error');
    assert.equal(rule.options.maxLines, MAX_FUNCTION_LINES);
    const lint = (...paths: string[]) =>
      spawnSync(
        BIOME,
        ['lint', '--only=complexity/noExcessiveLinesPerFunction', '--max-diagnostics=none', ...paths],
        {
          cwd: ROOT,
          encoding: 'utf8',
        },
      );
    const whole = lint('src', join('web', 'src'));
    assert.equal(whole.status, 0, whole.stdout + whole.stderr);
    // The guard can fail: a body of 80 lines passes, one of 81 does not.
    const probeDir = join(ROOT, `function-length-probe-${process.pid}`);
    const body = (lines: number) =>
      [
        'export function probe(): number {',
        '  let n = 0;',
        ...Array(lines - 2).fill('  n += 1;'),
        '  return n;',
        '}',
        '',
      ].join('\n');
    mkdirSync(probeDir, { recursive: true });
    try {
      writeFileSync(join(probeDir, 'probe.ts'), body(MAX_FUNCTION_LINES));
      assert.equal(lint(probeDir).status, 0, `${MAX_FUNCTION_LINES} lines pass`);
      writeFileSync(join(probeDir, 'probe.ts'), body(MAX_FUNCTION_LINES + 1));
      const over = lint(probeDir);
      assert.equal(over.status, 1);
      assert.match(over.stdout + over.stderr, new RegExp(`too many lines \\(${MAX_FUNCTION_LINES + 1}\\)`));
    } finally {
      rmSync(probeDir, { recursive: true, force: true });
    }
  });

  test(`no file of the project is over ${MAX_LINES} lines`, () => {
    const code = (path: string) => /\.(ts|tsx|mjs)$/.test(path);
    const files = ['src', 'test', join('web', 'src'), 'bench', 'scripts'].flatMap((dir) => walk(dir, code));
    const long = files
      .map((path) => ({ path, lines: readFileSync(join(ROOT, path), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ path, lines }) => `${path}: ${lines}`);
    assert.deepEqual(long, []);
  });
});
