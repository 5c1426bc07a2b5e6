// The operator CLI's entry (bin/atelier picks the runtime). `serve` runs the built server (building
// first only when the build is missing or stale); every other command runs the TypeScript sources
// through tsx, so it works on a fresh clone (after `npm ci`) and always matches the checked-out code.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
// First, before any native addon loads: refuse an unsupported Node.js with a clear message.
await import('../src/platform/require-supported-runtime.ts');
if (process.argv[2] === 'serve') {
  const { ensureCurrentBuild } = await import('../scripts/ensure-build.mjs');
  ensureCurrentBuild(fileURLToPath(new URL('..', import.meta.url)));
  await import('../dist/src/server.js');
} else {
  const { runCli } = await import('../src/cli/main.ts');
  const code = await runCli(process.argv.slice(2));
  if (process.argv[2] !== 'mcp') process.exitCode = code;
}
