import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type AtelierClient, accountStatusSchema } from '../../client/atelier-client.js';
import { errorResult, structuredResult } from '../tool-results.js';

/** Registers `get_account_status`: who the key belongs to, the plan tier, and whether generation can run. */
export function registerGetAccountStatus(server: McpServer, client: AtelierClient): void {
  server.registerTool(
    'get_account_status',
    {
      title: 'Get account status',
      description:
        'The account behind the API key: email, tier (trial, starter, standard or pro) and has_key. Use tier as ' +
        'a cost hint: on trial or starter prefer cheaper choices (fewer images, 1K/2K rather than 4K, a cheaper ' +
        'model). If has_key is false, generate_image will fail with upstream_key_missing until the user configures ' +
        'an upstream key.',
      outputSchema: accountStatusSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (extra) => {
      try {
        return structuredResult(await client.userStatus({ signal: extra.signal }));
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}
