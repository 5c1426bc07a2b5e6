/**
 * The wire shapes of the operator's task log (`/api/admin/v1/tasks`, issue 43): every task of every
 * account, newest first, with what it cost and how long it waited and ran; and one task's life.
 */
import { z } from 'zod';
import { TASK_STATUSES } from '../domain/task-status.js';

export const MAX_TASK_LOG_LIMIT = 100;

const epochMs = (what: string) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number of milliseconds since the Unix epoch')
    .min(0, 'must not be negative')
    .optional()
    .describe(what);
const text = (what: string) => z.string().trim().min(1).max(200).optional().describe(what);

export const taskLogQuerySchema = z.object({
  account: text("An account's id, or text its e-mail address contains (case-insensitive)"),
  key: text("The API key's id (`key_…`) that created the task"),
  model: text("The generation's model (the catalog's model id)"),
  route: text('The route the task runs or ran on: `provider/upstreamModel`'),
  provider: text('The provider of the route the task runs or ran on'),
  status: z.enum(TASK_STATUSES, { error: 'must be a task status' }).optional(),
  since: epochMs('Created at or after (epoch ms)'),
  until: epochMs('Created before (epoch ms)'),
  error: text("Text the task's error contains (case-insensitive)"),
  cursor: z
    .string()
    .max(200)
    .optional()
    .describe("The previous page's `next_cursor`: the page after it, with the same filters"),
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(MAX_TASK_LOG_LIMIT, `must be at most ${MAX_TASK_LOG_LIMIT}`)
    .default(50),
});
export type TaskLogQuery = z.output<typeof taskLogQuerySchema>;

const ms = z.number().int();
export const taskLogRowSchema = z
  .object({
    id: z.string(),
    generation_id: z.string(),
    account_id: z.string(),
    account_email: z.string().nullable(),
    api_key_id: z.string().nullable().describe('The API key that created it; null: the website'),
    model: z.string(),
    route: z.string().describe('`provider/upstreamModel` it runs or ran on (the last after fallbacks)'),
    provider: z.string(),
    status: z.enum(TASK_STATUSES),
    error: z.string().nullable(),
    created_at: ms.describe('Epoch ms'),
    started_at: ms.nullable().describe('First submit upstream (epoch ms); null: never submitted'),
    finished_at: ms.nullable(),
    cost_micros: ms.nullable().describe('What it cost, micro-dollars; null: unfinished, failed or unpriced'),
    absorbed_micros: ms.nullable().describe('Billed beyond its quote, absorbed by the operator'),
    queue_wait_ms: ms.describe('Created to first submit (or to its end, or to now, when never submitted)'),
    upstream_ms: ms
      .nullable()
      .describe(
        'First submit to its end (or to now): upstream work, polls and retries; null: never submitted',
      ),
    attempts: ms.describe(
      'Calls that submitted it upstream, over every route (refusals for capacity are `refusals`, apart)',
    ),
    refusals: ms.describe('Calls the upstream refused (429) for it'),
    fallbacks: ms.describe('Moves to a next route'),
  })
  .describe('One task of the log');
export type TaskLogRow = z.output<typeof taskLogRowSchema>;

export const taskLogPageSchema = z.object({
  tasks: z.array(taskLogRowSchema).describe('Newest first (created_at, then id, descending)'),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass as `cursor` for the next page; null: this is the last page'),
});

export const taskLogParamsSchema = z.object({ id: z.string().min(1).max(100) });

export const taskLifeSchema = z
  .object({
    task: taskLogRowSchema,
    admission: z.object({
      created_at: ms,
      source: z.enum(['api', 'web']),
      prompt: z.string(),
      mode: z.string(),
      image_size: z.string(),
      image_count: z.number().int(),
      index: z.number().int().describe("The task's place in its generation (0-based)"),
      quote_cap_micros: ms.nullable().describe("A quote's most per image; null: no quote"),
      reserved_micros: ms.describe('Reserved against budgets while unfinished'),
    }),
    trace: z
      .object({
        trace_id: z.string().describe('The OpenTelemetry trace the task belongs to (32 hex)'),
        span_id: z.string().describe("The task's own span (16 hex): every span of its work is its child"),
        parent_span_id: z.string().nullable().describe('The span of the request that created it'),
      })
      .nullable()
      .describe('Where the task sits in its trace; null when tracing was off when it was created'),
    capacity: z.object({
      waiting_for: z
        .enum(['upstream_capacity', 'upstream_queue'])
        .nullable()
        .describe('What it waits for now'),
      pool: z.string().nullable().describe('The capacity pool it waits for now'),
      waiting_since: ms.nullable(),
      upstream_queue_position: z.number().int().nullable(),
      next_run_at: ms.nullable().describe('When an unfinished task runs next (epoch ms)'),
    }),
    upstream_calls: z
      .array(
        z.object({
          id: z.string(),
          pool: z.string(),
          started_at: ms,
          ended_at: ms.nullable().describe('null: in flight'),
          duration_ms: ms.nullable(),
          refused: z.boolean(),
        }),
      )
      .describe("The calls still kept (upstream_calls rows are pruned after their pool's window)"),
    fallbacks: z.array(
      z
        .object({ from: z.string(), to: z.string(), at: ms, error: z.string() })
        .describe('One move to a next route'),
    ),
    upstream: z.object({
      upstream_id: z.string().nullable().describe("The upstream's job id (async providers)"),
      upstream_key_id: z.string().nullable().describe('The pooled upstream key its submit used'),
      polls: z.number().int(),
    }),
    storage: z
      .object({
        asset_id: z.string(),
        blob_key: z.string(),
        url: z.string().nullable(),
        content_type: z.string(),
        bytes: z.number().int(),
        width: z.number().int().nullable(),
        height: z.number().int().nullable(),
        created_at: ms,
      })
      .nullable()
      .describe('The stored result; null: none stored'),
    webhooks: z.array(
      z.object({
        id: z.string(),
        url: z.string(),
        type: z.string(),
        state: z.string(),
        attempts: z.number().int(),
        last_status_code: z.number().int().nullable(),
        last_error: z.string().nullable(),
        created_at: ms,
        delivered_at: ms.nullable(),
      }),
    ),
  })
  .describe("One task's life, from what the engine records");
export type TaskLife = z.output<typeof taskLifeSchema>;
