import { pathToFileURL } from 'node:url';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createAtelierClient, normalizeBaseUrl } from '../client/atelier-client.js';
import { apiKeyTaskIdSeal } from './generation-tasks.js';
import { createServer } from './server.js';

export const DEFAULT_BASE_URL = 'http://localhost:8080';

export type McpConfig = { ok: true; baseUrl: string; apiKey: string } | { ok: false; problems: string[] };

/** Reads ATELIER_API_KEY (required) and ATELIER_BASE_URL (default http://localhost:8080), naming every problem. */
export function readMcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  const problems: string[] = [];
  const apiKey = env.ATELIER_API_KEY?.trim() ?? '';
  if (!apiKey) {
    problems.push(
      'ATELIER_API_KEY is not set. Put the Atelier API key of the account to use in the "env" section of your ' +
        'MCP client configuration (or create one with: bin/atelier accounts create --email you@example.com).',
    );
  }
  let baseUrl = DEFAULT_BASE_URL;
  const rawBaseUrl = env.ATELIER_BASE_URL?.trim();
  if (rawBaseUrl) {
    try {
      baseUrl = normalizeBaseUrl(rawBaseUrl);
    } catch (error) {
      problems.push(`ATELIER_BASE_URL: ${(error as Error).message}`);
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, baseUrl, apiKey };
}

/**
 * Runs the Atelier MCP server on stdin/stdout until the client disconnects. Exits the process with
 * code 1 and a message on stderr when the configuration is missing or wrong.
 */
export async function runMcpServer(env: NodeJS.ProcessEnv): Promise<void> {
  const config = readMcpConfig(env);
  if (!config.ok) {
    process.stderr.write(`atelier mcp: cannot start.\n${config.problems.map((p) => `  - ${p}\n`).join('')}`);
    process.exit(1);
  }

  // stdout carries the protocol and nothing else: a stray console.log from any dependency would
  // corrupt the stream, so console output goes to stderr for the life of this process.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  const client = createAtelierClient({ baseUrl: config.baseUrl, apiKey: config.apiKey });
  const server = createServer(client, {
    taskIdSeal: apiKeyTaskIdSeal(config.apiKey),
    // An API key: the tools ask before spending if the account switched that on for keys.
    spendConfirmation: { credential: 'api_key' },
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  const shutdown = () => {
    void server.close();
  };
  // The SDK's stdio transport does not notice the client going away; end of stdin is that signal.
  process.stdin.once('end', shutdown);
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  try {
    await server.connect(transport);
    process.stderr.write(`atelier mcp: serving ${config.baseUrl} over stdio\n`);
    await closed;
  } finally {
    process.stdin.off('end', shutdown);
    process.off('SIGINT', shutdown);
    process.off('SIGTERM', shutdown);
  }
}

// Runnable on its own (`node --import tsx src/edges/mcp/main.ts`, or `node dist/src/edges/mcp/main.js`).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runMcpServer(process.env).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `atelier mcp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
