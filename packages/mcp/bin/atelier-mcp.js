#!/usr/bin/env node
// `npx -y @atelier/mcp`: Atelier's MCP tool server on stdin/stdout. Configuration from the environment:
// ATELIER_API_KEY (required) and ATELIER_BASE_URL (default http://localhost:8080).
//
// The Node.js check runs first, in syntax every Node.js since 12 reads, and the bundle is imported
// only after it: on an older Node.js the person gets a clear message and exit code 1, not a warning
// followed by whatever breaks first. Keep MINIMUM equal to "engines" in package.json (a test checks).
const MINIMUM = [22, 12];
const found = process.versions.node.split('.').map(Number);
if (found[0] < MINIMUM[0] || (found[0] === MINIMUM[0] && found[1] < MINIMUM[1])) {
  process.stderr.write(
    `atelier-mcp needs Node.js ${MINIMUM.join('.')} or newer (this is ${process.version}, ${process.execPath}).\n` +
      'Install Node.js 22 or 24 (LTS) from https://nodejs.org/ or with a version manager (for example ' +
      '"nvm install 24"), then point your MCP client at it: set "command" to the new npx, or put the new ' +
      'Node.js first on the PATH the client starts it with.\n',
  );
  process.exit(1);
}

// V8's code cache for the bundle (Node.js's module.enableCompileCache, in the OS temp folder unless
// NODE_COMPILE_CACHE names another; checked against the file, silently off where it cannot write):
// every start after the first skips compiling its megabyte of JavaScript.
import('node:module')
  .then((module) => {
    if (module.enableCompileCache) module.enableCompileCache();
    return import('../dist/atelier-mcp.js');
  })
  .then((bundle) => bundle.runMcpServer(process.env))
  .then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(
        `atelier-mcp: ${error instanceof Error ? error.stack || error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );
