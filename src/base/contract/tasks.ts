import { z } from 'zod';
import { TASK_STATUSES } from '../domain/task-status.js';
import { integerQuery } from './paging.js';

export const MAX_BATCH_IDS = 20;
/** Longest long-poll, in seconds. */
export const MAX_WAIT_SECONDS = 60;

/**
 * What something cost, in integer micro-units of US dollars (1 USD = 1,000,000): from the upstream's
 * own token figures (`upstream_usage`) or the catalog's published per-image price (`catalog_price`).
 */
export const costSchema = z
  .object({
    amount_micros: z.number().int().min(0).describe('Micro-dollars: 67000 is $0.067'),
    currency: z.literal('USD'),
    source: z
      .enum(['upstream_usage', 'catalog_price'])
      .describe(
        "`upstream_usage`: the upstream's reported tokens × the route's token prices; `catalog_price`: the route's per-image price for the size",
      ),
  })
  .meta({ id: 'Cost' });

export type Cost = z.output<typeof costSchema>;

/** The task status record of spec §2.4, plus result metadata on completed tasks. */
export const taskRecordSchema = z
  .object({
    task_id: z.string(),
    status: z
      .enum(TASK_STATUSES)
      .describe(
        'queued → in_progress → completed, or any unfinished state → failed; final states never change',
      ),
    progress: z
      .number()
      .int()
      .min(0)
      .max(100)
      .describe('Percent; never decreases; 100 exactly when completed'),
    imageUrl: z.string().optional().describe("Atelier's stable URL of the result; only when completed"),
    retention: z
      .literal('none')
      .optional()
      .describe(
        'Only on a zero-retention task (Atelier-Retention: none, or a key that stores nothing): its image is kept until fetched once, or an hour after it ended; imageUrl then answers 410 gone',
      ),
    error: z
      .string()
      .optional()
      .describe('Failure message ("Canceled" after a cancel, "Task not found" in a batch); only when failed'),
    width: z.number().int().optional().describe('Result width in pixels; only when completed'),
    height: z.number().int().optional().describe('Result height in pixels; only when completed'),
    contentType: z.string().optional().describe('Result media type; only when completed'),
    bytes: z.number().int().optional().describe('Result size in bytes; only when completed'),
    provider: z
      .string()
      .optional()
      .describe(
        'The upstream that made the result (a fallback route when the first was down); only when completed',
      ),
    parentTaskId: z
      .string()
      .optional()
      .describe(
        'Extra field (not in the spec): the image (task id) this task refines, when its generation names a parent (lineage)',
      ),
    seed: z
      .number()
      .int()
      .optional()
      .describe(
        'Extra field (not in the spec): the seed this image was sent upstream with, on routes that take one (GET /api/v1/models, `seeds`); only when completed',
      ),
    cost: costSchema
      .nullable()
      .optional()
      .describe(
        "What the image cost; only when completed, null when its upstream route has no price. A failed task costs nothing and has no cost field. An extra field, not the spec's",
      ),
    waiting_for: z
      .enum(['upstream_capacity', 'upstream_queue'])
      .optional()
      .describe(
        "Why an unfinished task waits: `upstream_capacity` while its upstream key is at its limit (a rate limit, a Retry-After, the catalog's capacity); it is served in fair turns and keeps waiting up to its deadline. `upstream_queue` while it was handed to an upstream that queues work (fal) and waits in that queue. Absent otherwise. An extra field, not the spec's",
      ),
    queue_position: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        "Only with `waiting_for` (1 = next). With `upstream_capacity`: the task's place among this account's own waiting tasks on the same upstream (submission order; other accounts' tasks are not counted: they take fair turns in between). With `upstream_queue`: its place in the upstream's queue as the upstream last said it (every caller of that upstream counted). An extra field, not the spec's",
      ),
    estimated_start_at: z
      .string()
      .optional()
      .describe(
        "Only with `waiting_for`, when it can be estimated: when the task should start (ISO-8601 UTC, rounded up to 5 s), from the end of the upstream's hold (Retry-After), its recent pace and the tasks ahead in fair turns. An estimate, not a promise. An extra field, not the spec's",
      ),
  })
  .meta({
    id: 'TaskRecord',
    description: 'Task status record',
    examples: [
      {
        task_id: 'tsk_4f9c2a7e1b3d5c6a8e0f',
        status: 'completed',
        progress: 100,
        imageUrl: 'http://localhost:8080/files/results/tsk_4f9c2a7e1b3d5c6a8e0f.png',
        width: 2048,
        height: 2048,
        contentType: 'image/png',
        bytes: 3145728,
      },
    ],
  });

export type TaskRecord = z.output<typeof taskRecordSchema>;

export const taskBatchSchema = z
  .object({ tasks: z.array(taskRecordSchema).describe('One record per id, strictly in input order') })
  .meta({ id: 'TaskBatch', description: 'Batch of task records' });

export type TaskBatch = z.output<typeof taskBatchSchema>;

export const taskIdParamsSchema = z.object({ task_id: z.string().describe('Task id') });

/** `ids=a,b,c`: trimmed, empty entries dropped, 1–20 left (DESIGN.md §2). */
const batchIds = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? 'query parameter is required'
        : 'must be given once, as a comma-separated list',
  })
  // At least one id: a character other than a comma or a space (the document's `pattern`).
  .regex(/[^\s,]/, 'must name at least one task id')
  .transform((raw, context) => {
    const ids = raw
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '');
    if (ids.length === 0) context.addIssue({ code: 'custom', message: 'must name at least one task id' });
    else if (ids.length > MAX_BATCH_IDS) {
      const message = `at most ${MAX_BATCH_IDS} ids per request`;
      context.addIssue({ code: 'custom', message, params: { sentence: true } });
    }
    return ids;
  })
  .meta({
    type: 'string',
    description: `Comma-separated task ids, 1 to ${MAX_BATCH_IDS} after trimming and dropping empty entries`,
  });

const waitSeconds = integerQuery({ fallback: 0, min: 0, max: MAX_WAIT_SECONDS }).describe(
  `Long-poll: wait up to this many seconds for a change of an unfinished task (0–${MAX_WAIT_SECONDS}; default 0)`,
);

export const taskWaitQuerySchema = z.object({ wait: waitSeconds });
export const taskBatchQuerySchema = z.object({ ids: batchIds, wait: waitSeconds });
export const taskStreamQuerySchema = z.object({
  ids: batchIds,
  previews: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .optional()
    .transform((raw) => raw === 'true')
    .describe(
      '`true`: also send `event: preview` with `{"task_id","frames"}` when a task stores a partial frame (tasks asked with partial images: the website\'s own). An extra, not the spec\'s',
    ),
});
