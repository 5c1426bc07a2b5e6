import type { TaskRecord } from '../../base/contract/tasks.js';
import type { TasksTable } from '../../infra/store/schema/tasks.js';
import type { WaitPlace } from './capacity/wait-places.js';

// The wire record is defined once, in the contract; the capability maps its rows onto it.
export type { TaskRecord };

export const TASK_NOT_FOUND = 'Task not found';

/** The columns a task's wire record is made of (a poll reads these, not the whole row). */
export const RECORD_COLUMNS = [
  'id',
  'status',
  'progress',
  'image_url',
  'error',
  'width',
  'height',
  'content_type',
  'bytes',
  'provider',
  'waiting_for',
  'upstream_queue_position',
  'cost_micros',
  'cost_source',
  'parent_task_id',
  'seed',
  'blob_key',
  'zero_retention',
] as const satisfies ReadonlyArray<keyof TasksTable>;

/**
 * Maps a stored task row to its wire record: imageUrl only when completed, error only when failed,
 * waiting_for only while unfinished, with its place and estimate when the row carries them.
 */
export function toTaskRecord(
  row: Pick<
    TasksTable,
    | 'id'
    | 'status'
    | 'progress'
    | 'image_url'
    | 'error'
    | 'width'
    | 'height'
    | 'content_type'
    | 'bytes'
    | 'provider'
  > &
    Partial<
      Pick<
        TasksTable,
        | 'waiting_for'
        | 'upstream_queue_position'
        | 'cost_micros'
        | 'cost_source'
        | 'parent_task_id'
        | 'seed'
        | 'zero_retention'
      >
    > &
    Partial<WaitPlace>,
): TaskRecord {
  const status = row.status;
  const record: TaskRecord = { task_id: row.id, status, progress: row.progress };
  if (row.parent_task_id) record.parentTaskId = row.parent_task_id;
  // Zero-retention: the image is answered once, then its URL answers 410 (docs/operations.md).
  if (Number(row.zero_retention ?? 0) === 1) record.retention = 'none';
  // Why an unfinished task waits (an extra field, not the spec's): parked for upstream capacity, or
  // in the upstream's own queue.
  if (row.waiting_for && (status === 'queued' || status === 'in_progress')) {
    record.waiting_for = row.waiting_for;
    // Where it stands: in the upstream's queue as it said; else when the read placed it
    // (tasks-service.ts; computed per read, not stored).
    if (row.waiting_for === 'upstream_queue') {
      if (row.upstream_queue_position) record.queue_position = row.upstream_queue_position;
    } else if (row.queue_position !== undefined) record.queue_position = row.queue_position;
    if (row.estimated_start_at !== undefined) record.estimated_start_at = row.estimated_start_at;
  }
  if (status === 'completed') {
    record.progress = 100;
    record.imageUrl = row.image_url ?? '';
    if (row.width !== null) record.width = row.width;
    if (row.height !== null) record.height = row.height;
    if (row.content_type !== null) record.contentType = row.content_type;
    if (row.bytes !== null) record.bytes = row.bytes;
    record.provider = row.provider;
    if (row.seed != null) record.seed = row.seed;
    if (row.cost_micros !== undefined)
      record.cost =
        row.cost_micros === null || row.cost_source === null || row.cost_source === undefined
          ? null
          : { amount_micros: Number(row.cost_micros), currency: 'USD', source: row.cost_source };
  } else if (status === 'failed') {
    record.error = row.error ?? 'Task failed';
  }
  return record;
}

/**
 * True when two records of a task read the same to a caller (status, progress, result, error, wait).
 * The place and estimate of a capacity wait are left out on purpose: they are figures of a read, not the task's state
 * (a place moves up when other tasks are called back, without a write to this one), so they never
 * make a change event; a poll, or the event stream's first look, shows them.
 */
export function sameTaskRecord(a: TaskRecord, b: TaskRecord): boolean {
  return (
    a.task_id === b.task_id &&
    a.status === b.status &&
    a.progress === b.progress &&
    a.imageUrl === b.imageUrl &&
    a.error === b.error &&
    a.width === b.width &&
    a.height === b.height &&
    a.contentType === b.contentType &&
    a.bytes === b.bytes &&
    a.provider === b.provider &&
    a.waiting_for === b.waiting_for &&
    // A place in the upstream's queue is the upstream's word, written with the task: its moves are news.
    (a.waiting_for !== 'upstream_queue' || a.queue_position === b.queue_position)
  );
}

/** The in-place answer for an unknown or foreign id in a batch (DESIGN.md §2). */
export function notFoundRecord(taskId: string): TaskRecord {
  return { task_id: taskId, status: 'failed', progress: 0, error: TASK_NOT_FOUND };
}
