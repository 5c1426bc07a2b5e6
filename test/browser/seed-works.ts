import assert from 'node:assert/strict';
import type { Core } from '../../src/core.js';

/** Real works of mixed kinds to make through the API: seven shapes, one to four images, failures, long prompts. */
export const MIXED_WORKS = [
  { prompt: 'template square', aspect: '1:1', count: 1 },
  { prompt: 'template wide pair', aspect: '16:9', count: 2 },
  {
    prompt: `template tall, ${'a long prompt that wraps onto many lines, '.repeat(12).trim()}`,
    aspect: '9:16',
    count: 1,
  },
  { prompt: 'template panorama batch', aspect: '21:9', count: 4 },
  { prompt: 'template portrait that fails [[fail]]', aspect: '4:5', count: 1 },
  { prompt: 'template three', aspect: '2:3', count: 3 },
  { prompt: 'template landscape', aspect: '3:2', count: 1 },
  { prompt: 'template failed pair [[fail]]', aspect: '1:1', count: 2 },
  { prompt: 'template square, last', aspect: '1:1', count: 1 },
];

/**
 * Makes `works` through the API (`api` sends a request with the account's key) and waits for every
 * task to end; returns their generation ids, newest first.
 */
export async function makeWorks(
  api: (path: string, init?: RequestInit) => Promise<Response>,
  works: ReadonlyArray<Record<string, unknown>>,
): Promise<string[]> {
  for (const work of works) {
    const answer = await api('/api/v1/generate', {
      method: 'POST',
      body: JSON.stringify({ imageSize: '1K', ...work }),
    });
    assert.equal(answer.status, 200, await answer.clone().text());
    for (const taskId of ((await answer.json()) as { task_ids: string[] }).task_ids) {
      for (;;) {
        const record = (await (await api(`/api/v1/tasks/${taskId}?wait=30`)).json()) as { status: string };
        if (record.status === 'completed' || record.status === 'failed') break;
      }
    }
  }
  const history = (await (await api(`/api/v1/history?limit=${works.length}`)).json()) as {
    items: Array<{ id: string }>;
  };
  return history.items.map((item) => item.id);
}

/** The tails of the seeded prompts, in turn: none, a phrase, a long one, one that fills two lines and more. */
const TAILS = [
  '',
  ', a harbour at dawn with fishing boats',
  `, ${'a quiet street of painted houses under a low winter sun, with long shadows and wet cobblestones, '.repeat(3).trim()}`,
  `, ${'an orchard in full bloom seen from a hill, bees, a dry stone wall, a path, distant blue mountains, '.repeat(10).trim()}`,
];

/** The prompt of seeded work `n` (0-based): "seeded work n+1" and one of four tails of growing length. */
export const seededPrompt = (n: number) => `seeded work ${n + 1}${TAILS[n % TAILS.length]}`;

/** The id of seeded work `n` (0-based). */
export const seededId = (n: number) => `gen_seed${String(n).padStart(6, '0')}`;

/**
 * Many saved works fast, for the scale tests (issues 30 and 37): the account's real works made
 * through the API (`templates`: each a generation whose image files exist — of different shapes,
 * image counts, some failed) are copied in turn, `copies` times in all, straight into the store: the
 * generation, every task (failed ones too) and every result asset, with new ids, a prompt of varied
 * length (`seededPrompt`) and an older date (one work every 15 minutes, so the copies span ~50 days),
 * and the account's counts moved as the repositories would.
 */
export async function seedWorks(
  core: Core,
  templates: string[],
  copies: number,
  {
    promptOf = seededPrompt,
    spacingMs = 15 * 60_000,
  }: { promptOf?: (n: number) => string; spacingMs?: number } = {},
): Promise<void> {
  const db = core.resources.db;
  const sources = await Promise.all(
    templates.map(async (id) => {
      const generation = await db
        .selectFrom('generations')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const tasks = await db
        .selectFrom('tasks')
        .selectAll()
        .where('generation_id', '=', id)
        .orderBy('id')
        .execute();
      const assets = await db.selectFrom('assets').selectAll().where('generation_id', '=', id).execute();
      return { generation, tasks, assets };
    }),
  );
  const newest = Math.min(...sources.map((source) => Number(source.generation.created_at)));
  const at = (n: number) => newest - (n + 1) * spacingMs;
  const BATCH = 100;
  for (let from = 0; from < copies; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, copies - from) }, (_, i) => from + i);
    const copied = batch.map((n) => {
      const source = sources[n % sources.length];
      if (!source) throw new Error('no template');
      const id = seededId(n);
      const taskId = (i: number) => `tsk_${id.slice(4)}_${i}`;
      const tasks = source.tasks.map((task, i) => ({
        ...task,
        id: taskId(i),
        generation_id: id,
        created_at: at(n),
        updated_at: at(n),
        finished_at: task.finished_at === null ? null : at(n),
      }));
      const assets = source.assets.flatMap((asset) => {
        const i = source.tasks.findIndex((task) => task.id === asset.task_id);
        return i < 0
          ? []
          : [
              {
                ...asset,
                id: `ast_${id.slice(4)}_${i}`,
                generation_id: id,
                task_id: taskId(i),
                created_at: at(n),
              },
            ];
      });
      return {
        generation: { ...source.generation, id, prompt: promptOf(n), created_at: at(n) },
        tasks,
        assets,
      };
    });
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('generations')
        .values(copied.map((c) => c.generation))
        .execute();
      await trx
        .insertInto('tasks')
        .values(copied.flatMap((c) => c.tasks))
        .execute();
      const assets = copied.flatMap((c) => c.assets);
      if (assets.length > 0) await trx.insertInto('assets').values(assets).execute();
    });
  }
  const accountId = sources[0]?.generation.account_id ?? '';
  await db
    .updateTable('generation_counts')
    .set((eb) => ({
      history_total: eb('history_total', '+', copies),
      saved_total: eb('saved_total', '+', copies),
      history_version: eb('history_version', '+', 1),
    }))
    .where('account_id', '=', accountId)
    .execute();
}

/** `copies` copies of one work, prompted "seeded work 1", "seeded work 2"… (the Library's tests). */
export const seedCopiesOfWork = (core: Core, generationId: string, copies: number) =>
  seedWorks(core, [generationId], copies, { promptOf: (n) => `seeded work ${n + 1}`, spacingMs: 1000 });
