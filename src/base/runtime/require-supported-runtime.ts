// Imported first by every entry point (server, CLI, MCP): stops an unsupported Node.js before any
// native addon loads — better-sqlite3 13 crashes on Node 20 instead of failing cleanly.
import { isSupportedNodeVersion, unsupportedRuntimeMessage } from './supported-runtime.js';

if (!isSupportedNodeVersion(process.versions.node)) {
  process.stderr.write(`${unsupportedRuntimeMessage(process.version, process.execPath)}\n`);
  process.exit(1);
}
