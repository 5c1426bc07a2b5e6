// The operator CLI's entry (bin/atelier picks the runtime). Every command runs the built JavaScript
// (dist/), never the TypeScript sources: a production install needs no TypeScript loader. When the
// build is missing or older than the sources (a fresh clone after `npm ci`, a `git pull`), it is built
// first, under a lock, so the command always matches the checked-out code and concurrent commands never
// build the same dist/ twice at once; see scripts/ensure-build.mjs.
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { ensureCurrentBuild } from '../scripts/ensure-build.mjs';

ensureCurrentBuild(fileURLToPath(new URL('..', import.meta.url)));
// First among the built modules, before any native addon loads: refuse an unsupported Node.js clearly.
await import('../dist/src/base/runtime/require-supported-runtime.js');
// Node's module compile cache for every command, as dist/src/server.js turns it on for the server.
module.enableCompileCache();
// Two faces of their own start here (the CLI's commands never import another edge): the server, and
// the MCP stdio server, which runs until its client closes stdin.
if (process.argv[2] === 'serve') {
  await import('../dist/src/server.js');
} else if (process.argv[2] === 'mcp') {
  const { runMcpServer } = await import('../dist/src/edges/mcp/main.js');
  await runMcpServer(process.env);
} else {
  const { runCli } = await import('../dist/src/edges/cli/main.js');
  process.exitCode = await runCli(process.argv.slice(2));
}
