import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type AtelierClient, taskRecordSchema } from '../../client/atelier-client.js';
import type { Thumbnailer } from '../thumbnails.js';
import { errorResult, pollingHint, structuredResult, taskImageBlocks } from '../tool-results.js';

const inputSchema = {
  task_id: z.string().min(1).describe('A task id from the task_ids that generate_image returned.'),
};

/** Registers `get_task`: the status record of one task, with a thumbnail once it is completed. */
export function registerGetTask(server: McpServer, client: AtelierClient, thumbnailer: Thumbnailer): void {
  server.registerTool(
    'get_task',
    {
      title: 'Get a task',
      description:
        'Status of one generation task: queued or in_progress (poll again in 2-5 s, no faster), completed ' +
        '(imageUrl is the stable result URL; a thumbnail is attached) or failed (error says why). For several ' +
        'tasks use batch_get_tasks, one call for up to 20 ids.',
      inputSchema,
      outputSchema: taskRecordSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ task_id }, extra) => {
      try {
        const task = await client.getTask(task_id, { signal: extra.signal });
        const hint = pollingHint([task]);
        const blocks = await taskImageBlocks([task], thumbnailer, extra.signal);
        return structuredResult(task, hint ? [{ type: 'text', text: hint }, ...blocks] : blocks);
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}
