// Builds the server and the website only when the build is missing or older than its sources, so
// `npm start` and `bin/atelier serve` start at once on a current build. Inputs: src/, web/ (but
// web/dist), package.json, package-lock.json and the tsconfig files; the stamp is dist/.build-stamp.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const INPUTS = ['src', 'web', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const SKIP = new Set(['node_modules', 'dist']);

function newestMtime(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(path)) {
    if (!SKIP.has(name)) newest = Math.max(newest, newestMtime(join(path, name)));
  }
  return newest;
}

/** True when dist/ and web/dist/ were built after the last change to any input. */
export function isBuildCurrent(root) {
  const stamp = newestMtime(join(root, 'dist', '.build-stamp'));
  if (stamp === 0 || newestMtime(join(root, 'web', 'dist', 'index.html')) === 0) return false;
  return INPUTS.every((input) => newestMtime(join(root, input)) < stamp);
}

/** Runs `npm run build` when the build is not current; exits the process when the build fails. */
export function ensureCurrentBuild(root) {
  if (isBuildCurrent(root)) return;
  const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) {
    process.stderr.write('atelier: the build failed (npm run build); not starting\n');
    process.exit(1);
  }
  writeFileSync(join(root, 'dist', '.build-stamp'), `${new Date().toISOString()}\n`);
}
