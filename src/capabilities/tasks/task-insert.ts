import type { Transaction } from 'kysely';
import { MAX_SEED } from '../../base/domain/image-actions.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import { compiledInserts } from '../../infra/store/compiled-once.js';
import type { Db } from '../../infra/store/database.js';
import type { TasksTable } from '../../infra/store/schema/tasks.js';
import type { Database } from '../../infra/store/schema.js';

/** The seed of image `index` of a generation whose first image has `seed`: the next ones, wrapping. */
export const seedOfImage = (seed: number, index: number): number => (seed + index) % (MAX_SEED + 1);

/** What a generation's new tasks are made of (one row per image asked for). */
export interface NewTasks {
  generationId: string;
  accountId: string;
  /** The catalog's model asked for (the generation's). */
  model: string;
  count: number;
  provider: string;
  upstreamModel: string;
  now: number;
  deadlineMs: number;
  /** The engine node that runs them at once (the lease is taken with the insert), or null. */
  leaseOwner: string | null;
  leaseMs: number;
  /** Partial frames each task should store as it renders (OpenAI's `partial_images`, 0-3); 0 by default. */
  partialImages?: number;
  /** The most each image can cost (micro-dollars), reserved against budgets until it ends; 0 by default. */
  costReservedMicros?: number;
  /** A quote's most per image: the task is never charged more (absent: no cap). */
  costCapMicros?: number;
  /** The API key that asked for them (`key_…`); null or absent for the website's session. */
  apiKeyId?: string | null;
  /** The image the generation refines (lineage); absent: none. */
  parentTaskId?: string;
  /** The first image's seed: image i is sent seed + i (wrapping within 0..MAX_SEED); absent: none. */
  seed?: number;
  /** The trace the tasks join (the request's span); each task gets a span id of its own. Absent: not traced. */
  trace?: TaskTrace;
  /** Their work stores nothing (zero-retention, migration 0076): the records say so. */
  zeroRetention?: boolean;
}

/** Where a generation's tasks sit in a trace: the trace, their parent span, and new span ids. */
export interface TaskTrace {
  traceId: string;
  parentSpanId: string;
  newSpanId(): string;
}

/** The queued rows of a generation's tasks, ids taken in order (not yet written). */
export function newTaskRows(ids: IdGenerator, input: NewTasks): TasksTable[] {
  const { now } = input;
  return Array.from({ length: input.count }, (_, idx) => ({
    id: ids.next('tsk'),
    generation_id: input.generationId,
    account_id: input.accountId,
    idx,
    provider: input.provider,
    upstream_model: input.upstreamModel,
    model: input.model,
    status: 'queued',
    progress: 0,
    error: null,
    image_url: null,
    blob_key: null,
    width: null,
    height: null,
    content_type: null,
    bytes: null,
    upstream_id: null,
    attempts: 0,
    needs_reconcile: 0,
    polls: 0,
    next_run_at: now,
    lease_owner: input.leaseOwner,
    lease_expires_at: input.leaseOwner ? now + input.leaseMs : null,
    deadline_at: now + input.deadlineMs,
    started_at: null,
    finished_at: null,
    created_at: now,
    waiting_for: null,
    capacity_pool: null,
    waiting_since: null,
    partial_images: input.partialImages ?? 0,
    partial_frames: 0,
    usage_json: null,
    cost_micros: null,
    cost_source: null,
    cost_reserved_micros: input.costReservedMicros ?? 0,
    cost_cap_micros: input.costCapMicros ?? null,
    api_key_id: input.apiKeyId ?? null,
    upstream_key_id: null,
    updated_at: now,
    ...(input.parentTaskId === undefined ? {} : { parent_task_id: input.parentTaskId }),
    ...(input.seed === undefined ? {} : { seed: seedOfImage(input.seed, idx) }),
    ...(input.zeroRetention ? { zero_retention: 1 } : {}),
    ...(input.trace === undefined
      ? {}
      : {
          trace_id: input.trace.traceId,
          trace_span_id: input.trace.newSpanId(),
          trace_parent_span_id: input.trace.parentSpanId,
        }),
  }));
}

/**
 * The only insert of task rows: inside the caller's transaction (its generation commits with them),
 * compiled once per shape (the count of rows, the optional columns set).
 */
export function taskInserts(db: Db): (trx: Transaction<Database>, rows: TasksTable[]) => Promise<void> {
  const inserts = compiledInserts(db, 'tasks');
  return async (trx, rows) => {
    await trx.executeQuery(inserts(rows));
  };
}
