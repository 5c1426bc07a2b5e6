import { Conflict, NotFound } from '../../base/domain/errors.js';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { WaitPlaces } from './capacity/wait-places.js';
import { createFinalRecordCache, type FinalRecordCache } from './final-records.js';
import type { TaskWithRequest } from './pending-tasks.js';
import { type ReportedUsage, sumUsage } from './reported-usage.js';
import { isCanceledError, type TaskEngine } from './task-engine.js';
import { TASK_NOT_FOUND, type TaskRecord, toTaskRecord } from './task-record.js';
import type { TaskRecordRow, TasksRepository } from './tasks-repository.js';

type FinalRecords = FinalRecordCache<TaskRecordRow>;

/** What the service reads with: the store, the places of parked tasks, the final records kept. */
interface RecordReader {
  tasks: TasksRepository;
  places: WaitPlaces | undefined;
  finalRecords: FinalRecords;
}

/**
 * What callers (the API's task routes, the OpenAI routes' wait, the website) ask of tasks: an
 * account's records, one or a batch, and cancel. It owns the final-record cache: a final record
 * read once is answered from memory after (see final-records.ts). Errors are domain errors.
 */
export function createTasksService({
  tasks,
  engine,
  places,
}: {
  tasks: TasksRepository;
  engine: Pick<TaskEngine, 'cancel'>;
  /** Places and start estimates of parked tasks (records without them when absent). */
  places?: WaitPlaces | undefined;
}) {
  const finalRecords = createFinalRecordCache<TaskRecordRow>();
  const reader: RecordReader = { tasks, places, finalRecords };
  const findMany = (accountId: string, taskIds: readonly string[]): Promise<TaskRecordRow[]> =>
    findRecords(reader, accountId, taskIds);

  return {
    findMany,

    /** The website's creation view: the account's unfinished tasks with their requests (and places). */
    async listPendingForAccount(
      accountId: string,
      options: Parameters<TasksRepository['listPendingForAccount']>[1],
    ): Promise<TaskWithRequest[]> {
      const cards = await tasks.listPendingForAccount(accountId, options);
      return withPlaces(places, accountId, cards, (card) => card.task_id);
    },

    recordsInMemory: (accountId: string, taskIds: readonly string[]): TaskRecordRow[] | undefined =>
      recordsInMemory(finalRecords, accountId, taskIds),

    findInMemory: (accountId: string, taskId: string): TaskRecordRow | undefined =>
      findInMemory(finalRecords, accountId, taskId),

    /** The account's record of `taskId`; NotFound when the account has no such task. */
    async find(accountId: string, taskId: string): Promise<TaskRecordRow> {
      const [row] = await findMany(accountId, [taskId]);
      if (!row) throw new NotFound(TASK_NOT_FOUND);
      return row;
    },

    /** How many partial frames each of an account's tasks has stored (ids it has none of are absent). */
    async partialFrames(accountId: string, taskIds: readonly string[]): Promise<Map<string, number>> {
      const rows = await tasks.readStreamExtras(accountId, taskIds);
      return new Map(rows.map((row) => [row.id, row.partial_frames]));
    },

    reportedUsage: (taskIds: readonly string[]): Promise<ReportedUsage | undefined> =>
      reportedUsage(tasks, taskIds),

    cancel: (accountId: string, taskId: string): Promise<TaskRecord> => cancelTask(engine, accountId, taskId),
  };
}

export type TasksService = ReturnType<typeof createTasksService>;

/**
 * The rows with the place and estimate of each parked one (`waiting_for` set, unfinished), in
 * two queries for the whole lot; the rest unchanged. New objects: kept rows are never touched.
 */
async function withPlaces<Row extends { status: string; waiting_for?: string | null | undefined }>(
  places: WaitPlaces | undefined,
  accountId: string,
  list: Row[],
  idOf: (row: Row) => string,
): Promise<Row[]> {
  if (places === undefined) return list;
  const parked = list.filter(
    (row) =>
      row.waiting_for === 'upstream_capacity' && (row.status === 'queued' || row.status === 'in_progress'),
  );
  if (parked.length === 0) return list;
  const found = await places(accountId, parked.map(idOf));
  return list.map((row) => {
    const place = found.get(idOf(row));
    return place === undefined ? row : { ...row, ...place };
  });
}

/**
 * The record columns of an account's tasks among `taskIds` (foreign and unknown ids are absent),
 * in no particular order. Final records come from memory once seen (they never change).
 */
async function findRecords(
  { tasks, places, finalRecords }: RecordReader,
  accountId: string,
  taskIds: readonly string[],
): Promise<TaskRecordRow[]> {
  const found: TaskRecordRow[] = [];
  const unread: string[] = [];
  for (const id of new Set(taskIds)) {
    const known = finalRecords.get(id);
    if (known === undefined) unread.push(id);
    else if (known.accountId === accountId) found.push(known.row);
  }
  if (unread.length === 0) return found;
  const read = await tasks.readRecordsForAccount(accountId, unread);
  for (const row of read) {
    if (isFinalStatus(row.status)) finalRecords.remember(row.id, accountId, row);
  }
  const rows = await withPlaces(places, accountId, read, (row) => row.id);
  return found.length === 0 ? rows : [...found, ...rows];
}

/**
 * The records of `taskIds` (the account's only) when every id is a final record kept in memory,
 * so the answer needs no query and no promise; undefined when any id is not.
 */
function recordsInMemory(
  finalRecords: FinalRecords,
  accountId: string,
  taskIds: readonly string[],
): TaskRecordRow[] | undefined {
  const found: TaskRecordRow[] = [];
  for (const id of taskIds) {
    const known = finalRecords.get(id);
    if (known === undefined) return undefined;
    if (known.accountId === accountId) found.push(known.row);
  }
  return found;
}

/**
 * The account's final record of `taskId` when kept in memory (no query, no promise); undefined
 * when not kept; NotFound when it is kept and belongs to another account.
 */
function findInMemory(
  finalRecords: FinalRecords,
  accountId: string,
  taskId: string,
): TaskRecordRow | undefined {
  const known = finalRecords.get(taskId);
  if (known === undefined) return undefined;
  if (known.accountId !== accountId) throw new NotFound(TASK_NOT_FOUND);
  return known.row;
}

/**
 * The usage the upstreams reported for these tasks, summed over those that reported any;
 * undefined when none did. For records the caller already read for its account (an answer's
 * completed images).
 */
async function reportedUsage(
  tasks: TasksRepository,
  taskIds: readonly string[],
): Promise<ReportedUsage | undefined> {
  if (taskIds.length === 0) return undefined;
  const rows = await tasks.readStreamExtras(undefined, taskIds);
  return sumUsage(
    rows.flatMap((row) => (row.usage_json ? [JSON.parse(row.usage_json) as ReportedUsage] : [])),
  );
}

/**
 * Cancels an unfinished task (it ends failed "Canceled"; repeating answers the same, as does a cancel
 * of a task an operator canceled). NotFound
 * when the account has no such task, Conflict when it had already ended otherwise.
 */
async function cancelTask(
  engine: Pick<TaskEngine, 'cancel'>,
  accountId: string,
  taskId: string,
): Promise<TaskRecord> {
  const row = await engine.cancel(accountId, taskId);
  if (!row) throw new NotFound(TASK_NOT_FOUND);
  const record = toTaskRecord(row);
  if (record.status === 'completed') throw new Conflict('Task already completed; it cannot be canceled');
  // Canceled already (by its caller, or by an operator): answered as it is.
  if (record.status === 'failed' && !isCanceledError(record.error))
    throw new Conflict(`Task already failed (${record.error}); it cannot be canceled`);
  return record;
}
