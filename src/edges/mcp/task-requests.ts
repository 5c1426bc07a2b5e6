import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

type RawHandler = (
  request: { params?: { name?: unknown; task?: unknown; cursor?: unknown } },
  extra: unknown,
) => Promise<unknown>;
/** The SDK's table of request handlers (Protocol's, 1.32): the one place a tools/call can be refused first. */
type WithHandlers = { _requestHandlers: Map<string, RawHandler> };

/**
 * MCP tasks as the spec says (2025-11-25, tasks §"Tool-level negotiation" and "Error handling"): a
 * task-augmented `tools/call` of a tool that does not support tasks is refused with -32601 *before*
 * the tool runs (the SDK ran it, then answered -32602), and `tasks/list`, which Atelier does not offer
 * (there is no list without server state), is an unknown method (-32601), not -32602.
 */
export function refuseUnofferedTaskRequests(server: McpServer, taskTools: ReadonlySet<string>): void {
  server.server.removeRequestHandler('tasks/list');
  const handlers = (server.server as unknown as WithHandlers)._requestHandlers;
  const callTool = handlers.get('tools/call');
  if (!callTool) throw new Error('tools/call is registered before task requests are checked');
  handlers.set('tools/call', async (request, extra) => {
    const { name, task } = request.params ?? {};
    if (task !== undefined && typeof name === 'string' && !taskTools.has(name)) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Tool ${name} does not support task-augmented calls; call it without "task"`,
      );
    }
    return callTool(request, extra);
  });
}

/** The list requests MCP pages with an opaque cursor (2025-11-25, utilities/pagination). */
const PAGED_LISTS = ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list'];

/**
 * Cursors Atelier reads back are cursors it issued, and it issues none: every list is one page (no
 * `nextCursor`). A request carrying a cursor is refused as the pagination spec says for an invalid
 * one (-32602), the cursor not echoed; the SDK would answer the first page as if it were the next.
 */
export function refuseUnissuedCursors(server: McpServer): void {
  const handlers = (server.server as unknown as WithHandlers)._requestHandlers;
  for (const method of PAGED_LISTS) {
    const list = handlers.get(method);
    if (!list) continue;
    handlers.set(method, async (request, extra) => {
      if (request.params?.cursor !== undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          'Invalid cursor: Atelier answers every list in one page and issues no cursor; list without one',
        );
      }
      return list(request, extra);
    });
  }
}
