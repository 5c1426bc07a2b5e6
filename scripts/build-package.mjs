// `prepack` of packages/mcp and packages/client: compiles the package's entry and everything it
// imports from src/ into the package's dist/ (plain JavaScript), so installing the tarball builds
// nothing. Refuses a graph that reaches a native module: the packages must install anywhere.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildMcpApp } from './build-mcp-app.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const packageDir = process.cwd();
rmSync(join(packageDir, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
  cwd: packageDir,
  stdio: 'inherit',
});

const NATIVE = ['sharp', 'better-sqlite3', 'pg', 'kysely', 'fastify'];
function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (path.endsWith('.js')) yield path;
  }
}
for (const file of files(join(packageDir, 'dist'))) {
  const text = readFileSync(file, 'utf8');
  for (const name of NATIVE) {
    if (new RegExp(`from '${name}(/[^']*)?'`).test(text)) {
      throw new Error(`${file} imports ${name}: a package must need no database, server or native module`);
    }
  }
}

// The MCP server's gallery app (MCP Apps) reads its page from the package's dist/mcp-app.
if (existsSync(join(packageDir, 'dist', 'edges', 'mcp', 'gallery-app.js')))
  await buildMcpApp(root, packageDir);
