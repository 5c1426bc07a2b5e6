import { createRecentMap } from '../../base/collections/recent-map.js';
import type { HistoryItem, HistoryPage } from '../../base/contract/generations.js';
import type { SearchFilters } from '../../base/contract/website/shared.js';
import { IMAGE_ACTIONS } from '../../base/domain/image-actions.js';
import { UNFINISHED_STATUSES } from '../../base/domain/task-status.js';
import type { PendingListingOptions, TaskWithRequest } from '../../capabilities/tasks/index.js';
import { type TaskRecord, toTaskRecord } from '../../capabilities/tasks/index.js';
import type { Db } from '../../infra/store/database.js';
import type { GenerationsTable } from '../../infra/store/schema/generations.js';
import type { TasksTable } from '../../infra/store/schema/tasks.js';

/**
 * The creations read model: the one module where generations meet their tasks, for reading only.
 *
 * Owners: `generations` and `generation_counts` belong to src/use-cases/generations, `tasks` to src/capabilities/tasks; each
 * writes its own tables alone. What shows a generation with its tasks is read here: history pages,
 * saved works (the website's gallery) and the creation view's pending cards. History and saved works
 * compose the two owners' own reads (a page of generations, then their tasks); the pending cards
 * are one query over both tables, the only SQL that joins them.
 */

/** What the read model asks of the generations capability (its repository). */
export interface GenerationPages {
  page(
    accountId: string,
    page: number,
    limit: number,
    options?: { includeRemoved?: boolean; filters?: SearchFilters },
  ): Promise<{ rows: GenerationsTable[]; total: number }>;
  /** A work's versions, oldest first (see generation-reads.ts); empty when not the account's. */
  lineage(accountId: string, generationId: string): Promise<GenerationsTable[]>;
  /** One saved work (not rejected, not deleted) of the account, by id. */
  savedOne(accountId: string, generationId: string): Promise<GenerationsTable | undefined>;
  /** Whether a work of the account had its files removed by the lifecycle (deleted or expired). */
  isPurged(accountId: string, generationId: string): Promise<boolean>;
  /** Moves with every change a history page can show (see generations-repository.ts). */
  historyVersion(accountId: string): number | Promise<number>;
}

/** What the read model asks of the tasks capability (its repository). */
export interface TasksOfGenerations {
  findByGenerations(generationIds: string[]): Promise<TaskOfGeneration[]>;
}

/** A task's record columns and its generation. */
type TaskOfGeneration = Parameters<typeof toTaskRecord>[0] & Pick<TasksTable, 'generation_id' | 'image_url'>;

/** A saved work (the website's gallery): a generation not deleted, with every task's state. */
export interface SavedWork extends Omit<HistoryItem, 'images' | 'removed'> {
  source: 'api' | 'web';
  tasks: TaskRecord[];
}

/** The fields a history item and a saved work share, from the generation's row. */
export function generationFields(row: GenerationsTable, tasks: readonly TaskOfGeneration[]) {
  const seed = tasks[0]?.seed;
  return {
    id: row.id,
    prompt: row.prompt,
    model: row.model,
    mode: row.mode,
    aspect: row.aspect,
    imageSize: row.image_size,
    imageCount: row.image_count,
    refs: JSON.parse(row.refs_json) as string[],
    createdAt: Number(row.created_at),
    ...lineageFields(row),
    ...(seed == null ? {} : { seed }),
  };
}

/** A refinement's lineage, as extra fields of history items and saved works (absent on a first work). */
function lineageFields(
  row: GenerationsTable,
): Pick<HistoryItem, 'parentId' | 'parentTaskId' | 'instruction' | 'action' | 'actionOptions'> {
  if (!row.parent_id) return {};
  const action = IMAGE_ACTIONS.find((a) => a === row.action);
  return {
    parentId: row.parent_id,
    ...(row.parent_task_id ? { parentTaskId: row.parent_task_id } : {}),
    ...(row.instruction ? { instruction: row.instruction } : {}),
    ...(action
      ? { action, actionOptions: JSON.parse(row.action_json ?? '{}') as Record<string, number | string> }
      : {}),
  };
}

/** What a generation's completed tasks cost (failed ones cost nothing); null when one's cost is unknown. */
export function generationCost(tasks: readonly TaskOfGeneration[]): HistoryItem['cost'] {
  let amount = 0;
  for (const task of tasks) {
    if (task.status !== 'completed') continue;
    if (task.cost_micros === null || task.cost_micros === undefined) return null;
    amount += Number(task.cost_micros);
  }
  return { amount_micros: amount, currency: 'USD' };
}

/** How many history pages a process keeps (about 10 KB each at 20 items). */
export const HISTORY_PAGES_KEPT = 500;

/** The tasks of `rows`' generations, by generation, in the tasks' order. */
async function tasksByGeneration(tasks: TasksOfGenerations, rows: GenerationsTable[]) {
  const byGeneration = new Map<string, TaskOfGeneration[]>();
  for (const task of await tasks.findByGenerations(rows.map((r) => r.id))) {
    const list = byGeneration.get(task.generation_id) ?? [];
    list.push(task);
    byGeneration.set(task.generation_id, list);
  }
  return byGeneration;
}

/** What the creation reads are built over. */
interface CreationDeps {
  generations: GenerationPages;
  tasks: TasksOfGenerations;
  db: Db;
}

/** History pages and saved works: a page of generations (their owner's read), then their tasks. */
export function createCreationReads(deps: CreationDeps) {
  const kept = createRecentMap<string, { version: number; page: HistoryPage }>(HISTORY_PAGES_KEPT);
  return {
    /**
     * One page of the account's history (GET /history), newest first, kept in memory under the
     * account's history version. The version moves in the same transaction as every change a page
     * can show — a generation created, rejected or removed, a task completed — on any node, so a
     * kept page is served only while it is exactly what the store would answer; otherwise it is read
     * again (ids from the index, the rows, their tasks). Checking costs one primary-key read,
     * whatever the page's depth.
     */
    async historyPage(
      accountId: string,
      page: number,
      limit: number,
      filters?: SearchFilters,
    ): Promise<HistoryPage> {
      // A filtered page (a star, a collection) is read each time, like saved works' searches.
      if (filters !== undefined && Object.values(filters).some((value) => value !== undefined))
        return readHistory(deps, accountId, page, limit, filters);
      // The version first: a change committed while the page is read leaves it under an older
      // version, which the next request no longer matches.
      const version = await deps.generations.historyVersion(accountId);
      const key = `${accountId} ${page} ${limit}`;
      const known = kept.get(key);
      if (known !== undefined && known.version === version) return known.page;
      const fresh = await readHistory(deps, accountId, page, limit);
      kept.set(key, { version, page: fresh });
      return fresh;
    },

    /** The account's distinct recent prompts (see `recentPrompts`). */
    recentPrompts: (accountId: string, options: { q?: string | undefined; limit: number }) =>
      recentPrompts(deps.generations, accountId, options),

    /** How long recent completed tasks took, by model and size (see `recentDurations`). */
    durations: (accountId: string, sample: number) => recentDurations(deps.db, accountId, sample),

    /**
     * A work's versions as history items, oldest first: its ancestors and every refinement of them
     * (lineage). `id` is a generation id, or one of its images' task id (what an API caller holds).
     * Undefined when the work is not the account's.
     */
    async versions(accountId: string, id: string): Promise<HistoryItem[] | undefined> {
      const generationId = id.startsWith('tsk_') ? await generationOfTask(deps.db, accountId, id) : id;
      if (generationId === undefined) return undefined;
      const rows = await deps.generations.lineage(accountId, generationId);
      if (rows.length === 0) return undefined;
      return historyItems(rows, await tasksByGeneration(deps.tasks, rows));
    },

    /** One of the account's saved works by id, with its tasks (a work's own link); undefined otherwise. */
    savedWork: (accountId: string, generationId: string) => savedWork(deps, accountId, generationId),

    /** Whether the account's work `generationId` had its files removed (deleted past Undo, or expired). */
    isPurged: (accountId: string, generationId: string) => deps.generations.isPurged(accountId, generationId),

    /** One page of the account's saved works (not deleted, matching `filters`), each with its tasks. */
    savedWorks: (accountId: string, page: number, limit: number, filters: SearchFilters = {}) =>
      savedWorks(deps, accountId, page, limit, filters),
  };
}

/** The generation of one of the account's tasks, or undefined. */
async function generationOfTask(db: Db, accountId: string, taskId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('tasks')
    .select('generation_id')
    .where('id', '=', taskId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.generation_id ?? undefined;
}

/** A history page read from the store: a page of generations, then their tasks. */
async function readHistory(
  deps: CreationDeps,
  accountId: string,
  page: number,
  limit: number,
  filters?: SearchFilters,
): Promise<HistoryPage> {
  const { rows, total } = await deps.generations.page(accountId, page, limit, filters && { filters });
  const tasks = await tasksByGeneration(deps.tasks, rows);
  return { items: historyItems(rows, tasks), total, page, limit, total_pages: Math.ceil(total / limit) };
}

/** Generations as history items, with their tasks' images and cost. */
function historyItems(rows: GenerationsTable[], tasks: Map<string, TaskOfGeneration[]>): HistoryItem[] {
  return rows.map((row) => {
    const own = tasks.get(row.id) ?? [];
    const images = own.flatMap((task) =>
      task.status === 'completed' && task.image_url ? [task.image_url] : [],
    );
    const item: HistoryItem = { ...generationFields(row, own), images, cost: generationCost(own) };
    if (row.deleted_at !== null) item.removed = true;
    return item;
  });
}

/**
 * The account's distinct recent prompts (saved works', newest first), those matching `q` by the
 * saved works' search: the creation view's prompt history. Reads pages of generations until
 * `limit` distinct prompts are found or three pages are read.
 */
async function recentPrompts(
  generations: GenerationPages,
  accountId: string,
  options: { q?: string | undefined; limit: number },
): Promise<string[]> {
  const prompts: string[] = [];
  const seen = new Set<string>();
  const pageSize = 50;
  for (let page = 1; page <= 3 && prompts.length < options.limit; page++) {
    const { rows } = await generations.page(accountId, page, pageSize, {
      includeRemoved: false,
      filters: options.q === undefined ? {} : { q: options.q },
    });
    for (const row of rows) {
      if (seen.has(row.prompt)) continue;
      seen.add(row.prompt);
      prompts.push(row.prompt);
      if (prompts.length === options.limit) break;
    }
    if (rows.length < pageSize) break;
  }
  return prompts;
}

/** One of the account's saved works by id, with its tasks; undefined otherwise. */
async function savedWork(
  deps: CreationDeps,
  accountId: string,
  generationId: string,
): Promise<SavedWork | undefined> {
  const row = await deps.generations.savedOne(accountId, generationId);
  if (!row) return undefined;
  const own = (await tasksByGeneration(deps.tasks, [row])).get(row.id) ?? [];
  return { ...generationFields(row, own), source: row.source, tasks: own.map(toTaskRecord) };
}

/** One page of the account's saved works (not deleted, matching `filters`), each with its tasks. */
async function savedWorks(
  deps: CreationDeps,
  accountId: string,
  page: number,
  limit: number,
  filters: SearchFilters,
) {
  const { rows, total } = await deps.generations.page(accountId, page, limit, {
    includeRemoved: false,
    filters,
  });
  const tasks = await tasksByGeneration(deps.tasks, rows);
  const items: SavedWork[] = rows.map((row) => {
    const own = tasks.get(row.id) ?? [];
    return { ...generationFields(row, own), source: row.source, tasks: own.map(toTaskRecord) };
  });
  return { items, total, page, limit, total_pages: Math.ceil(total / limit) };
}

export type CreationReads = ReturnType<typeof createCreationReads>;

/**
 * The creation view's cards: the account's unfinished tasks, plus every task created at or after
 * `since` (so a task that began and ended between two looks still shows up), newest first, at most
 * `limit`, each with its generation's request, in one query. Tasks of rejected or deleted
 * generations are left out, and so are tasks already final at `clearedAt` (the creation view
 * cleared them).
 */
export async function listPendingCards(
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
      'generations.refs_json',
    ])
    .where('tasks.account_id', '=', accountId)
    .where('generations.rejected', '=', 0)
    .where('generations.deleted_at', 'is', null)
    .where((eb) => {
      const stillRunning = eb('tasks.status', 'in', UNFINISHED_STATUSES);
      return since === undefined ? stillRunning : eb.or([stillRunning, eb('tasks.created_at', '>=', since)]);
    })
    .$if(clearedAt != null, (query) =>
      query.where((eb) =>
        eb.or([
          eb('tasks.status', 'in', UNFINISHED_STATUSES),
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
    refs: JSON.parse(row.refs_json) as string[],
    createdAt: Number(row.created_at),
  }));
}

/** The middle value of `values` (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * How long the account's `sample` newest completed tasks took from submit to result, grouped by
 * model and size: the creation view's "about 40 s". One query over the account's tasks (its
 * `tasks_account_created` index, newest first) joined with their generations.
 */
export async function recentDurations(db: Db, accountId: string, sample: number) {
  const rows = await db
    .selectFrom('tasks')
    .innerJoin('generations', 'generations.id', 'tasks.generation_id')
    .select(['generations.model', 'generations.image_size', 'tasks.created_at', 'tasks.finished_at'])
    .where('tasks.account_id', '=', accountId)
    .where('tasks.status', '=', 'completed')
    .where('tasks.finished_at', 'is not', null)
    .orderBy('tasks.created_at', 'desc')
    .limit(sample)
    .execute();
  const groups = new Map<string, { model: string; imageSize: string; durations: number[] }>();
  for (const row of rows) {
    const key = `${row.model} ${row.image_size}`;
    const group = groups.get(key) ?? { model: row.model, imageSize: row.image_size, durations: [] };
    group.durations.push(Math.max(0, Number(row.finished_at) - Number(row.created_at)));
    groups.set(key, group);
  }
  return [...groups.values()].map(({ model, imageSize, durations }) => ({
    model,
    imageSize,
    median_ms: Math.round(median(durations)),
    samples: durations.length,
  }));
}
