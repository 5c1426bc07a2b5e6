import type { Db } from '../store/database.js';
import type { TasksTable } from '../store/schema.js';
import { type TaskRecord, toTaskRecord } from './task-record.js';

const unfinished: readonly TasksTable['status'][] = ['queued', 'in_progress'];

/** A task's status record with what its generation asked for (the website's creation view lists these). */
export interface TaskWithRequest extends TaskRecord {
  generation_id: string;
  /** Whether the task was submitted through the API (`api`) or from the website (`web`). */
  source: 'api' | 'web';
  prompt: string;
  model: string;
  mode: string;
  aspect: string;
  imageSize: string;
  /** Position of the image in its generation, and how many the generation asked for. */
  index: number;
  count: number;
  createdAt: number;
}

export interface PendingListingOptions {
  since: number | undefined;
  limit: number;
  clearedAt?: number | null;
}

/**
 * The account's unfinished tasks, plus every task created at or after `since` (so a task that
 * began and ended between two looks still shows up), newest first, at most `limit`, each with
 * its generation's request, in one query. Tasks of rejected or deleted generations are left out,
 * and so are tasks already final at `clearedAt` (the creation view cleared them).
 */
export async function listPendingForAccount(
  db: Db,
  accountId: string,
  options: PendingListingOptions,
): Promise<TaskWithRequest[]> {
  const { since, clearedAt } = options;
  const rows = await db
    .selectFrom('tasks')
    .innerJoin('generations', 'generations.id', 'tasks.generation_id')
    .select([
      'tasks.id',
      'tasks.status',
      'tasks.progress',
      'tasks.image_url',
      'tasks.error',
      'tasks.width',
      'tasks.height',
      'tasks.content_type',
      'tasks.bytes',
      'tasks.provider',
      'tasks.waiting_for',
      'tasks.idx',
      'tasks.created_at',
      'generations.id as generation_id',
      'generations.source',
      'generations.prompt',
      'generations.model',
      'generations.mode',
      'generations.aspect',
      'generations.image_size',
      'generations.image_count',
    ])
    .where('tasks.account_id', '=', accountId)
    .where('generations.rejected', '=', 0)
    .where('generations.deleted_at', 'is', null)
    .where((eb) => {
      const stillRunning = eb('tasks.status', 'in', unfinished);
      return since === undefined ? stillRunning : eb.or([stillRunning, eb('tasks.created_at', '>=', since)]);
    })
    .$if(clearedAt != null, (query) =>
      query.where((eb) =>
        eb.or([
          eb('tasks.status', 'in', unfinished),
          eb(eb.fn.coalesce('tasks.finished_at', 'tasks.updated_at'), '>', clearedAt ?? 0),
        ]),
      ),
    )
    .orderBy('tasks.created_at', 'desc')
    .orderBy('tasks.generation_id', 'desc')
    .orderBy('tasks.idx', 'asc')
    .limit(options.limit)
    .execute();
  return rows.map((row) => ({
    ...toTaskRecord(row),
    generation_id: row.generation_id,
    source: row.source === 'web' ? 'web' : 'api',
    prompt: row.prompt,
    model: row.model,
    mode: row.mode,
    aspect: row.aspect,
    imageSize: row.image_size,
    index: row.idx,
    count: row.image_count,
    createdAt: Number(row.created_at),
  }));
}
