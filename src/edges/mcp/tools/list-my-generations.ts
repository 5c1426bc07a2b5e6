import { registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type AtelierClient, historyPageSchema } from '../../client/atelier-client.js';
import { GALLERY_URI } from '../gallery-app.js';
import { errorResult, structuredResult } from '../tool-results.js';

export const MAX_HISTORY_LIMIT = 50;

const inputSchema = {
  page: z.number().int().min(1).optional().describe('Page number, 1-based (default 1).'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_HISTORY_LIMIT)
    .optional()
    .describe(`Generations per page, 1-${MAX_HISTORY_LIMIT} (default 20).`),
};

/** Registers `list_my_generations`: one page of the account's generation history. */
export function registerListMyGenerations(server: McpServer, client: AtelierClient): void {
  // An app tool (MCP Apps): hosts with the extension show the page of generations in the gallery.
  registerAppTool(
    server,
    'list_my_generations',
    {
      title: 'List my generations',
      description:
        'Past generation requests of this account, newest first: prompt, model, mode, aspect, imageSize, the ' +
        'result image URLs completed so far and the reference URLs (no thumbnails). Use total_pages to page further.',
      inputSchema,
      outputSchema: historyPageSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { ui: { resourceUri: GALLERY_URI } },
    },
    async ({ page, limit }, extra) => {
      try {
        const query: { page?: number; limit?: number } = {};
        if (page !== undefined) query.page = page;
        if (limit !== undefined) query.limit = limit;
        return structuredResult(await client.history(query, { signal: extra.signal }));
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}
