import type { TaskLife, TaskLogRow } from '../../base/contract/admin-tasks.js';
import type { Db } from '../../infra/store/database.js';
import type { TaskFallback } from '../../infra/store/schema/tasks.js';

const numberOrNull = (value: number | string | null | undefined) =>
  value === null || value === undefined ? null : Number(value);

/** The records of one task's life, read together. */
function readRecords(db: Db, taskId: string) {
  return Promise.all([
    db
      .selectFrom('tasks as t')
      .innerJoin('generations as g', 'g.id', 't.generation_id')
      .select([
        'g.source',
        'g.prompt',
        'g.mode',
        'g.image_size',
        'g.image_count',
        't.idx',
        't.cost_cap_micros',
        't.cost_reserved_micros',
        't.waiting_for',
        't.capacity_pool',
        't.waiting_since',
        't.upstream_queue_position',
        't.next_run_at',
        't.upstream_id',
        't.upstream_key_id',
        't.polls',
        't.trace_id',
        't.trace_span_id',
        't.trace_parent_span_id',
      ])
      .where('t.id', '=', taskId)
      .executeTakeFirstOrThrow(),
    db.selectFrom('upstream_calls').selectAll().where('task_id', '=', taskId).orderBy('started_at').execute(),
    db
      .selectFrom('assets')
      .selectAll()
      .where('task_id', '=', taskId)
      .orderBy('created_at')
      .executeTakeFirst(),
    db
      .selectFrom('webhook_deliveries')
      .select([
        'id',
        'url',
        'type',
        'state',
        'attempts',
        'last_status_code',
        'last_error',
        'created_at',
        'delivered_at',
      ])
      .where('task_id', '=', taskId)
      .orderBy('created_at')
      .execute(),
  ]);
}
type Records = Awaited<ReturnType<typeof readRecords>>;

function callOf(call: Records[1][number]): TaskLife['upstream_calls'][number] {
  const ended = numberOrNull(call.ended_at);
  return {
    id: call.id,
    pool: call.pool,
    started_at: Number(call.started_at),
    ended_at: ended,
    duration_ms: ended === null ? null : ended - Number(call.started_at),
    refused: Number(call.refused) === 1,
  };
}

function storageOf(asset: Records[2]): TaskLife['storage'] {
  if (!asset) return null;
  return {
    asset_id: asset.id,
    blob_key: asset.blob_key,
    url: asset.url,
    content_type: asset.content_type,
    bytes: Number(asset.bytes),
    width: numberOrNull(asset.width),
    height: numberOrNull(asset.height),
    created_at: Number(asset.created_at),
  };
}

/**
 * A task's life from the records the engine keeps (docs/admin-api.md says what is not kept): its
 * admission (the generation's request), where it waits now, the upstream calls still kept, its moves
 * to next routes, its stored result, and its webhook deliveries.
 */
export async function taskLifeOf(
  db: Db,
  task: TaskLogRow,
  fallbacksJson: string | null | undefined,
): Promise<TaskLife> {
  const [row, calls, asset, deliveries] = await readRecords(db, task.id);
  const unfinished = task.status === 'queued' || task.status === 'in_progress';
  return {
    task,
    admission: {
      created_at: task.created_at,
      source: row.source,
      prompt: row.prompt,
      mode: row.mode,
      image_size: row.image_size,
      image_count: Number(row.image_count),
      index: Number(row.idx),
      quote_cap_micros: numberOrNull(row.cost_cap_micros),
      reserved_micros: Number(row.cost_reserved_micros),
    },
    trace:
      row.trace_id && row.trace_span_id
        ? {
            trace_id: row.trace_id,
            span_id: row.trace_span_id,
            parent_span_id: row.trace_parent_span_id ?? null,
          }
        : null,
    capacity: {
      waiting_for: row.waiting_for,
      pool: row.capacity_pool,
      waiting_since: numberOrNull(row.waiting_since),
      upstream_queue_position: numberOrNull(row.upstream_queue_position),
      next_run_at: unfinished ? Number(row.next_run_at) : null,
    },
    upstream_calls: calls.map(callOf),
    fallbacks: fallbacksJson ? (JSON.parse(fallbacksJson) as TaskFallback[]) : [],
    upstream: {
      upstream_id: row.upstream_id,
      upstream_key_id: row.upstream_key_id,
      polls: Number(row.polls),
    },
    storage: storageOf(asset),
    webhooks: deliveries.map((d) => ({
      ...d,
      attempts: Number(d.attempts),
      created_at: Number(d.created_at),
      delivered_at: numberOrNull(d.delivered_at),
    })),
  };
}
