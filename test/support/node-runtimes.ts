// A Node.js of a given major line for tests that run something on a line other than the one the test
// runs on (the stdio package on the oldest supported line, its refusal on an unsupported one).
// Looked for, in order: the running Node.js; a `node` on the PATH or in /usr/bin, /usr/local/bin;
// the test cache node_modules/.cache/atelier-node-runtimes/node<major>; else the `node` package of
// that line is installed from the npm registry into that cache (the way .ci/run gets its second
// line), once: later runs and the other test files find it there. `npm ci` empties the cache.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const cacheRoot = fileURLToPath(new URL('../../node_modules/.cache/atelier-node-runtimes/', import.meta.url));

async function majorOf(node: string): Promise<number | undefined> {
  try {
    const { stdout } = await run(node, ['--version'], { timeout: 30_000 });
    return Number(/^v(\d+)\./.exec(stdout.trim())?.[1]);
  } catch {
    return undefined;
  }
}

async function installed(major: number): Promise<string> {
  const folder = join(cacheRoot, `node${major}`);
  const node = join(folder, 'node_modules', 'node', 'bin', 'node');
  if (existsSync(node) && (await majorOf(node)) === major) return node;
  await mkdir(cacheRoot, { recursive: true });
  // Installed beside the cache and moved into place whole, so a concurrent run never sees half of it.
  const staging = await mkdtemp(join(cacheRoot, `.node${major}-`));
  try {
    await writeFile(
      join(staging, 'package.json'),
      JSON.stringify({ private: true, allowScripts: { node: true } }),
    );
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `node@${major}`], {
      cwd: staging,
      timeout: 600_000,
    });
    await rm(folder, { recursive: true, force: true });
    await rename(staging, folder).catch((error: NodeJS.ErrnoException) => {
      if (!existsSync(node)) throw error; // another run moved its copy in first: use that one
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  if ((await majorOf(node)) !== major) throw new Error(`node@${major} from the npm registry did not install`);
  return node;
}

/** The path of a Node.js binary of the given major line (see the file's header for where it comes from). */
export async function nodeOfLine(major: number): Promise<string> {
  if (Number(process.versions.node.split('.')[0]) === major) return process.execPath;
  const onPath = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const dir of new Set([...onPath, '/usr/bin', '/usr/local/bin'])) {
    const node = join(dir, 'node');
    if (existsSync(node) && (await majorOf(node)) === major) return node;
  }
  return installed(major);
}
