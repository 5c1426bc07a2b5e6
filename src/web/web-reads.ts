import type { AssetKind } from '../assets/assets-repository.js';
import type { Db } from '../store/database.js';
import type { TaskRecord } from '../tasks/task-record.js';
import { toTaskRecord } from '../tasks/task-record.js';

/** A task as the creation view shows it: its status record plus what was asked for. */
export interface TaskCard extends TaskRecord {
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

/** An asset of the library, with the prompt of the generation a result came from (for alt text). */
export interface LibraryAsset {
  id: string;
  kind: AssetKind;
  url: string;
  contentType: string;
  bytes: number;
  width: number;
  height: number;
  generationId: string | null;
  prompt: string | null;
  createdAt: number;
}

/** Most cards one pending listing returns: a person's screen, not an export. */
export const MAX_PENDING_CARDS = 200;

/**
 * Read-only queries that join capabilities for the website's views (tasks with their generation,
 * assets with their prompt). Writes stay with each capability's own repository and service.
 */
export function createWebReads({ db }: { db: Db }) {
  return {
    /**
     * The account's unfinished tasks, plus every task created at or after `since` (so a task that
     * began and ended between two looks still shows up), newest first. Tasks of rejected or
     * deleted generations are left out.
     */
    async pendingTasks(accountId: string, since: number | undefined): Promise<TaskCard[]> {
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
          const unfinished = eb('tasks.status', 'in', ['queued', 'in_progress']);
          return since === undefined ? unfinished : eb.or([unfinished, eb('tasks.created_at', '>=', since)]);
        })
        .orderBy('tasks.created_at', 'desc')
        .orderBy('tasks.generation_id', 'desc')
        .orderBy('tasks.idx', 'asc')
        .limit(MAX_PENDING_CARDS)
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
    },

    /**
     * One page of the account's asset library, newest first: uploads, and results of the
     * generations still in saved works (deleting a work takes its images out of the library; the
     * files themselves stay at their URLs, which Atelier promises never expire).
     */
    async libraryPage(accountId: string, options: { page: number; limit: number; kind?: AssetKind }) {
      let base = db
        .selectFrom('assets')
        .leftJoin('generations', 'generations.id', 'assets.generation_id')
        .where('assets.account_id', '=', accountId)
        .where((eb) =>
          eb.or([eb('assets.generation_id', 'is', null), eb('generations.deleted_at', 'is', null)]),
        );
      if (options.kind) base = base.where('assets.kind', '=', options.kind);
      const totalRow = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
      const rows = await base
        .select([
          'assets.id',
          'assets.kind',
          'assets.url',
          'assets.content_type',
          'assets.bytes',
          'assets.width',
          'assets.height',
          'assets.generation_id',
          'assets.created_at',
          'generations.prompt',
        ])
        .orderBy('assets.created_at', 'desc')
        .orderBy('assets.id', 'desc')
        .limit(options.limit)
        .offset((options.page - 1) * options.limit)
        .execute();
      const items: LibraryAsset[] = rows.map((row) => ({
        id: row.id,
        kind: row.kind,
        url: row.url,
        contentType: row.content_type,
        bytes: Number(row.bytes),
        width: row.width,
        height: row.height,
        generationId: row.generation_id,
        prompt: row.prompt ?? null,
        createdAt: Number(row.created_at),
      }));
      return { items, total: Number(totalRow?.n ?? 0) };
    },

    /** The last characters of the account's API key, for telling keys apart (the key itself is never kept). */
    async apiKeyHint(accountId: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('accounts')
        .select('api_key_hint')
        .where('id', '=', accountId)
        .executeTakeFirst();
      return row?.api_key_hint;
    },
  };
}

export type WebReads = ReturnType<typeof createWebReads>;
