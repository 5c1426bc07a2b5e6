// The operator CLI's entry (bin/atelier picks the runtime). Runs the TypeScript sources through tsx,
// so it works on a fresh clone (after `npm ci`) without a build and always matches the checked-out code.
import { register } from 'tsx/esm/api';

register();
// First, before any native addon loads: refuse an unsupported Node.js with a clear message.
await import('../src/platform/require-supported-runtime.ts');
const { runCli } = await import('../src/cli/main.ts');
const code = await runCli(process.argv.slice(2));
if (process.argv[2] !== 'mcp') process.exitCode = code;
