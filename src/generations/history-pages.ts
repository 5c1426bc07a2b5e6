import { createRecentMap } from '../collections/recent-map.js';
import type { HistoryItem, HistoryPage } from '../contract/generations.js';
import type { GenerationsTable } from '../store/schema.js';
import type { TasksRepository } from '../tasks/tasks-repository.js';
import type { GenerationsRepository } from './generations-repository.js';

/** The fields a history item and a saved work share, from the generation's row. */
export function generationFields(row: GenerationsTable) {
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
  };
}

/** How many history pages a process keeps (about 10 KB each at 20 items). */
export const HISTORY_PAGES_KEPT = 500;

/**
 * History pages (GET /history), kept in memory under the account's history version. The version
 * moves in the same transaction as every change a page can show — a generation created, rejected
 * or removed, a task completed — on any node, so a kept page is served only while it is exactly
 * what the store would answer; otherwise it is read again (ids from the index, the rows, their
 * tasks). Checking costs one primary-key read, whatever the page's depth.
 */
export function createHistoryPages(deps: { generations: GenerationsRepository; tasks: TasksRepository }) {
  const kept = createRecentMap<string, { version: number; page: HistoryPage }>(HISTORY_PAGES_KEPT);

  async function read(accountId: string, page: number, limit: number): Promise<HistoryPage> {
    const { rows, total } = await deps.generations.page(accountId, page, limit);
    const tasks = await deps.tasks.findByGenerations(rows.map((r) => r.id));
    const images = new Map<string, string[]>();
    for (const task of tasks) {
      if (task.status !== 'completed' || !task.image_url) continue;
      const list = images.get(task.generation_id) ?? [];
      list.push(task.image_url);
      images.set(task.generation_id, list);
    }
    return {
      items: rows.map((row) => {
        const item: HistoryItem = { ...generationFields(row), images: images.get(row.id) ?? [] };
        if (row.deleted_at !== null) item.removed = true;
        return item;
      }),
      total,
      page,
      limit,
      total_pages: Math.ceil(total / limit),
    };
  }

  return {
    /** One page of the account's history, newest first. */
    async page(accountId: string, page: number, limit: number): Promise<HistoryPage> {
      // The version first: a change committed while the page is read leaves it under an older
      // version, which the next request no longer matches.
      const version = await deps.generations.historyVersion(accountId);
      const key = `${accountId} ${page} ${limit}`;
      const known = kept.get(key);
      if (known !== undefined && known.version === version) return known.page;
      const fresh = await read(accountId, page, limit);
      kept.set(key, { version, page: fresh });
      return fresh;
    },
  };
}
