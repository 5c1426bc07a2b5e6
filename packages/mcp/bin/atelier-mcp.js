#!/usr/bin/env node
// `npx -y @atelier/mcp`: Atelier's MCP tool server on stdin/stdout. Configuration from the environment:
// ATELIER_API_KEY (required) and ATELIER_BASE_URL (default http://localhost:8080).
import { runMcpServer } from '../dist/edges/mcp/main.js';

runMcpServer(process.env).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(
      `atelier-mcp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
