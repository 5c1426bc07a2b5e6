import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The tools a read-only server offers: they read, or price without charging; none creates or spends. */
export const READ_TOOLS = [
  'get_task',
  'batch_get_tasks',
  'list_my_generations',
  'list_versions',
  'get_account_status',
  'quote_image',
  'list_models',
] as const;

/** The tools only the full server offers: each creates something or spends. */
export const WRITE_TOOLS = [
  'generate_image',
  'refine_image',
  'act_on_image',
  'upload_reference_image',
] as const;

type RawHandler = (request: { params?: { name?: unknown } }, extra: unknown) => Promise<unknown>;
/** The SDK's table of request handlers (Protocol's, 1.32), as task-requests.ts uses it. */
type WithHandlers = { _requestHandlers: Map<string, RawHandler> };

/**
 * On a read-only server, a call of a write tool is refused by name with where to go instead (the
 * SDK's own answer, "Tool generate_image not found", would read as a bug). Like the SDK's, the
 * refusal is a tool error, which the model sees.
 */
export function refuseWriteTools(server: McpServer, fullEndpoint: string): void {
  const handlers = (server.server as unknown as WithHandlers)._requestHandlers;
  const callTool = handlers.get('tools/call');
  if (!callTool) throw new Error('tools/call is registered before write tools are refused');
  const writes = new Set<unknown>(WRITE_TOOLS);
  handlers.set('tools/call', async (request, extra) => {
    const name = request.params?.name;
    if (!writes.has(name)) return callTool(request, extra);
    const refusal: CallToolResult = {
      isError: true,
      content: [
        {
          type: 'text',
          text:
            `read_only: ${String(name)} is not offered on this read-only MCP endpoint, whatever the key or sign-in: ` +
            `it serves ${READ_TOOLS.join(', ')}. Nothing was created or charged. To generate, refine, act on or ` +
            `upload images, the user must connect the full endpoint (${fullEndpoint}) instead.`,
        },
      ],
    };
    return refusal;
  });
}

export const READ_ONLY_INSTRUCTIONS = `Atelier (read-only): this endpoint reads the user's image generations and prices calls; it creates and charges nothing, whatever the credential.
- get_task / batch_get_tasks: the status of tasks (completed tasks carry a stable imageUrl to give the user).
- list_my_generations, list_versions: the account's history and a work's versions.
- get_account_status: email, tier (a cost hint) and whether generation can run.
- list_models: the models, their modes, sizes, qualities, prices per image and lifecycle, and the actions offered; quote_image: the price of a generate_image call before it runs.
Generating, refining, acting on or uploading images needs the full MCP endpoint (/mcp instead of /mcp/readonly).`;
