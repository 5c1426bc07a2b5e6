import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ActionRoute, AtelierClient } from '../client/atelier-client.js';
import { actDescription } from './tools/act-on-image.js';

type RawHandler = (request: unknown, extra: { signal?: AbortSignal }) => Promise<unknown>;
/** The SDK's table of request handlers (Protocol's, 1.32), as task-requests.ts uses it. */
type WithHandlers = { _requestHandlers: Map<string, RawHandler> };

/** The configured actions as the API lists them, or undefined when it cannot say (then the text points to atelier://models). */
async function readActions(client: AtelierClient, signal?: AbortSignal): Promise<ActionRoute[] | undefined> {
  try {
    return (await client.models({ signal })).actions;
  } catch {
    return undefined;
  }
}

/**
 * `act_on_image`'s description names the actions this deployment configures, read from the catalog
 * (GET /api/v1/models `actions`, with the caller's key) each time the tools are listed, so a catalog
 * edit shows at the next tools/list on the stdio server and on /mcp alike. The description is set in
 * place (the SDK's `update` would announce a list change, and a client re-listing would loop).
 */
export function describeActionsOnList(server: McpServer, tool: RegisteredTool, client: AtelierClient): void {
  const handlers = (server.server as unknown as WithHandlers)._requestHandlers;
  const list = handlers.get('tools/list');
  if (!list) throw new Error('tools/list is registered before its descriptions are made live');
  handlers.set('tools/list', async (request, extra) => {
    tool.description = actDescription(await readActions(client, extra.signal));
    return list(request, extra);
  });
}
