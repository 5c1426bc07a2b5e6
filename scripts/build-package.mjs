// `prepack` of packages/mcp and packages/client: builds the package's dist/ from src/, so installing
// the tarball builds nothing. Refuses a graph that reaches a native module, a database or a server
// framework: the packages must install anywhere.
//
//   node ../../scripts/build-package.mjs
//     compiles the package's tsconfig.json (its entry and everything it imports from src/) into
//     plain JavaScript with type declarations (packages/client: a typed library).
//   node ../../scripts/build-package.mjs --bundle ../../src/edges/mcp/main.ts --out dist/atelier-mcp.js
//     bundles the entry and everything it imports, from src/ and from node_modules, into one ESM
//     file (packages/mcp: a command with no runtime dependency, so it installs offline from its
//     tarball). The graph is read from the source at pack time: whatever the entry imports is in.
//     The bundled packages' licences go to dist/THIRD-PARTY-LICENSES.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildMcpApp } from './build-mcp-app.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const packageDir = process.cwd();
const { values } = parseArgs({ options: { bundle: { type: 'string' }, out: { type: 'string' } } });
const NATIVE = ['sharp', 'better-sqlite3', 'pg', 'kysely', 'fastify'];

function refuse(where, name) {
  throw new Error(`${where} imports ${name}: a package must need no database, server or native module`);
}

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (path.endsWith('.js')) yield path;
  }
}

function compile() {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
    cwd: packageDir,
    stdio: 'inherit',
  });
  for (const file of files(join(packageDir, 'dist'))) {
    const text = readFileSync(file, 'utf8');
    for (const name of NATIVE) {
      if (new RegExp(`from '${name}(/[^']*)?'`).test(text)) refuse(file, name);
    }
  }
}

/** The package folder (node_modules/name or node_modules/@scope/name) an input path lies in, if any. */
function packageOf(input) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match?.[1];
}

/** One section per bundled package: name, version, licence, and the licence file's text. */
function writeLicences(inputs, outfile) {
  const folders = [...new Set(inputs.map(packageOf).filter(Boolean))].sort();
  const sections = folders.map((folder) => {
    const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'));
    const file = readdirSync(join(root, folder)).find((name) => /^licen[cs]e/i.test(name));
    const text = file ? readFileSync(join(root, folder, file), 'utf8').trim() : `(${manifest.license})`;
    return `## ${manifest.name} ${manifest.version} (${manifest.license})\n\n\`\`\`\n${text}\n\`\`\`\n`;
  });
  const header = `# Third-party code in ${outfile}\n\nThe bundle includes these packages, under their licences:\n\n`;
  writeFileSync(
    join(dirname(resolve(packageDir, outfile)), 'THIRD-PARTY-LICENSES.md'),
    header + sections.join('\n'),
  );
}

async function bundle(entry, outfile) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [resolve(packageDir, entry)],
    outfile: resolve(packageDir, outfile),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22.12',
    // A CommonJS dependency that requires a Node.js built-in gets the real `require` in an ES module.
    banner: {
      js: "import { createRequire as __atelierRequire } from 'node:module';\nconst require = __atelierRequire(import.meta.url);",
    },
    // Whitespace and syntax only: the names stay, so a stack trace in a bug report still reads.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs);
  for (const input of inputs) {
    const name = packageOf(input)?.replace(/^.*node_modules\//, '');
    if (name && NATIVE.includes(name)) refuse(entry, name);
    if (input.endsWith('.node')) refuse(entry, input);
  }
  writeLicences(inputs, outfile);
  return inputs;
}

rmSync(join(packageDir, 'dist'), { recursive: true, force: true });
if (values.bundle) {
  if (!values.out) throw new Error('--bundle needs --out (the bundle file, inside the package)');
  const inputs = await bundle(values.bundle, values.out);
  if (!existsSync(resolve(packageDir, values.out))) throw new Error(`${values.out} was not written`);
  // The MCP server's gallery app (MCP Apps) reads its page from the package's dist/mcp-app.
  if (inputs.includes('src/edges/mcp/gallery-app.ts')) await buildMcpApp(root, packageDir);
} else {
  compile();
}
