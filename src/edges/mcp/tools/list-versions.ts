import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type AtelierClient, workVersionsSchema } from '../../client/atelier-client.js';
import { errorResult, structuredResult } from '../tool-results.js';

const inputSchema = {
  work_id: z
    .string()
    .min(1)
    .max(200)
    .describe(
      'Any version of the work: a task id (tsk_…) from generate_image or refine_image, or a generation id ' +
        '(gen_…) from list_my_generations.',
    ),
};

/** Registers `list_versions`: a work's lineage (GET /api/v1/history/{id}/versions). */
export function registerListVersions(server: McpServer, client: AtelierClient): void {
  server.registerTool(
    'list_versions',
    {
      title: 'List the versions of a work',
      description:
        'Every version of a work, oldest first: the first image, each refine_image made from it and their ' +
        'refinements, as history items (id, prompt, images URLs; parentId, parentTaskId and instruction on ' +
        "each refinement). Deleted versions stay listed, marked removed. Any version's id gives the same list.",
      inputSchema,
      outputSchema: workVersionsSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ work_id }, extra) => {
      try {
        return structuredResult(await client.versions(work_id, { signal: extra.signal }));
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}
