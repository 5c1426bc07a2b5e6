// The real MCP server process over stdio, driven by the SDK's own client: what the end-to-end MCP
// tests share.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const mainArgs = ['--import', 'tsx', 'src/edges/mcp/main.ts'];

export interface McpSession {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/**
 * Starts the MCP server (by default `src/edges/mcp/main.ts` under tsx) with `env`. With `roots`, the
 * client declares the roots capability and answers roots/list with those directories, read at
 * each request (so a test can change them).
 */
export async function startMcp(
  env: Record<string, string>,
  options: { command?: { command: string; args: string[] }; roots?: () => string[] } = {},
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    ...(options.command ?? { command: process.execPath, args: mainArgs }),
    cwd: repoRoot,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client(
    { name: 'atelier-e2e', version: '0' },
    options.roots ? { capabilities: { roots: { listChanged: false } } } : {},
  );
  const { roots } = options;
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: roots().map((dir) => ({ uri: pathToFileURL(dir).href })),
    }));
  }
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export async function call(
  session: McpSession,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await session.client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text blocks of a tool result, joined. */
export function textOf(result: CallToolResult): string {
  return result.content
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text)
    .join('\n');
}
