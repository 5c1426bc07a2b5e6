import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

type RawHandler = (
  request: { params?: { name?: unknown; task?: unknown } },
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
