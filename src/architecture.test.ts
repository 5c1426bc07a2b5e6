import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

// The structure, held: docs/architecture.md's table (folder → what it owns → what it may import) is
// the rule, read from the document itself, so the two cannot drift apart. Every import between
// folders of src/ (and from the React app in web/src) must be one the table allows; there are no
// import cycles, type imports included; the edges never import each other; nothing shipped imports
// a test or a fake; unit tests beside the code build no core. A change of structure is a change of
// that table first.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TABLE_START = '<!-- structure:begin -->';
const TABLE_END = '<!-- structure:end -->';
/** The edges (faces) of the service: each may import the shared HTTP kit, never another edge. */
const EDGES = ['api', 'openai-compat', 'website', 'admin', 'mcp', 'cli'];
/** The composition root: the files directly in src/ (core, app, server, serve). */
const ROOT_FILES = '(root)';
/** The React app (web/src). */
const WEB = 'web';
const MAX_LINES = 400;

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

/** The folder a file belongs to: src/<folder>/…, the composition root, or the React app. */
function folderOf(path: string): string {
  if (path.startsWith(join('web', 'src') + sep)) return WEB;
  const parts = relative('src', path).split(sep);
  return parts.length === 1 ? ROOT_FILES : (parts[0] as string);
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

/** The table in docs/architecture.md: folder → the folders it may import. */
function readTable(): Map<string, Set<string>> {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  assert.ok(
    start >= 0 && end > start,
    `docs/architecture.md holds the table between ${TABLE_START} and ${TABLE_END}`,
  );
  const table = new Map<string, Set<string>>();
  for (const line of doc.slice(start, end).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 5 || !cells[1]?.startsWith('`')) continue;
    const folder = (cells[1].match(/`([^`]+)`/)?.[1] ?? '').replace(/^src\//, '').replace(/\/$/, '');
    const key = folder === 'src/*.ts' || folder === '*.ts' ? ROOT_FILES : folder === 'web/src' ? WEB : folder;
    const allowed = [...(cells[3] ?? '').matchAll(/`([^`]+)`/g)].map((m) => {
      const name = (m[1] as string).replace(/^src\//, '').replace(/\/$/, '');
      return name === 'src/*.ts' || name === '*.ts' ? ROOT_FILES : name;
    });
    table.set(key, new Set(allowed));
  }
  return table;
}

const graph = new Map(shipped.map((path) => [path, importsOf(path)]));

describe('architecture (docs/architecture.md is the enforced table)', () => {
  const table = readTable();

  test('the table names every folder of src/ and web/src, and only those', () => {
    const folders = new Set(shipped.map(folderOf));
    assert.deepEqual([...table.keys()].sort(), [...folders].sort());
  });

  test('every import between folders is one the table allows', () => {
    const breaches: string[] = [];
    for (const [path, targets] of graph) {
      const from = folderOf(path);
      for (const target of targets) {
        const to = folderOf(target);
        if (to !== from && !table.get(from)?.has(to)) breaches.push(`${path} → ${target} (${from} → ${to})`);
      }
    }
    assert.deepEqual(breaches, []);
  });

  test('the table allows no import that no file makes (it says what is, not what might be)', () => {
    const used = new Set<string>();
    for (const [path, targets] of graph)
      for (const target of targets) used.add(`${folderOf(path)} → ${folderOf(target)}`);
    const unused = [...table].flatMap(([from, allowed]) =>
      [...allowed].filter((to) => !used.has(`${from} → ${to}`)).map((to) => `${from} → ${to}`),
    );
    assert.deepEqual(unused, []);
  });

  test('the table lets no edge import another, and nothing low import a capability or an edge', () => {
    for (const edge of EDGES) {
      const others = EDGES.filter((other) => other !== edge && table.get(edge)?.has(other));
      assert.deepEqual(others, [], `${edge} may not import another edge`);
    }
    for (const low of ['domain', 'contract', 'store']) {
      const allowed = [...(table.get(low) ?? [])];
      const leaf = ['domain', 'runtime', 'collections'];
      assert.deepEqual(
        allowed.filter((name) => !leaf.includes(name)),
        [],
        `${low} imports only the vocabulary and the runtime`,
      );
    }
    assert.deepEqual([...(table.get('domain') ?? [])], [], 'the vocabulary imports nothing of the project');
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
