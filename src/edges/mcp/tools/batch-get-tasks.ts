import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type AtelierClient, tasksResponseSchema } from '../../client/atelier-client.js';
import type { Thumbnailer } from '../thumbnails.js';
import { errorResult, pollingHint, structuredResult, taskImageBlocks } from '../tool-results.js';

export const MAX_BATCH_IDS = 20;

const inputSchema = {
  task_ids: z
    .array(z.string().min(1))
    .min(1)
    .max(MAX_BATCH_IDS)
    .describe(
      `1 to ${MAX_BATCH_IDS} task ids (from generate_image). Records come back in exactly this order; an unknown ` +
        'id comes back in its slot as failed with error "Task not found".',
    ),
};

/** Registers `batch_get_tasks`: up to 20 task records in one call, thumbnails for the completed ones. */
export function registerBatchGetTasks(
  server: McpServer,
  client: AtelierClient,
  thumbnailer: Thumbnailer,
): void {
  server.registerTool(
    'batch_get_tasks',
    {
      title: 'Get several tasks',
      description:
        `Status of up to ${MAX_BATCH_IDS} generation tasks in one call, in the order given. Poll every 2-5 s ` +
        '(no faster) until every status is completed or failed. Completed tasks carry imageUrl (stable) and a ' +
        'thumbnail is attached; failed ones carry error.',
      inputSchema,
      outputSchema: tasksResponseSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ task_ids }, extra) => {
      try {
        const result = await client.getTasks(task_ids, { signal: extra.signal });
        const hint = pollingHint(result.tasks);
        const blocks = await taskImageBlocks(result.tasks, thumbnailer, extra.signal);
        return structuredResult(result, hint ? [{ type: 'text', text: hint }, ...blocks] : blocks);
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}
