import type { Core } from '../../src/core.js';

/** How one image of a seeded batch stands. */
export type SeededImage = 'completed' | 'queued' | 'cancelled';

const FAR = 365 * 24 * 3600 * 1000;
let serial = 0;

/**
 * A batch in a state the real engine passes through too fast to look at (issue 37, item 7): the
 * account's real work `generationId` (made through the API, so its image file exists) copied into
 * a new generation of `images.length` tasks — completed ones with the original's result, queued
 * ones due in a year (the engine leaves them waiting), cancelled ones failed "Canceled" as a
 * cancel leaves them. `tasks` overrides the copies' other columns (a provider, a size).
 */
export async function seedBatch(
  core: Core,
  generationId: string,
  prompt: string,
  images: SeededImage[],
  over: { imageSize?: '1K' | '2K' | '4K'; accountId?: string } = {},
): Promise<string> {
  const db = core.resources.db;
  const generation = await db
    .selectFrom('generations')
    .selectAll()
    .where('id', '=', generationId)
    .executeTakeFirstOrThrow();
  const task = await db
    .selectFrom('tasks')
    .selectAll()
    .where('generation_id', '=', generationId)
    .executeTakeFirstOrThrow();
  const asset = await db
    .selectFrom('assets')
    .selectAll()
    .where('task_id', '=', task.id)
    .executeTakeFirstOrThrow();
  const now = core.clock.now();
  const id = `gen_batch${String(++serial).padStart(4, '0')}${now.toString(36)}`;
  const accountId = over.accountId ?? generation.account_id;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('generations')
      .values({
        ...generation,
        id,
        account_id: accountId,
        prompt,
        image_count: images.length,
        ...(over.imageSize ? { image_size: over.imageSize } : {}),
        created_at: now,
      })
      .execute();
    for (const [idx, state] of images.entries()) {
      const taskId = `tsk_${id.slice(4)}_${idx}`;
      const unfinished = {
        status: 'queued' as const,
        progress: 0,
        image_url: null,
        blob_key: null,
        width: null,
        height: null,
        content_type: null,
        bytes: null,
        upstream_id: null,
        cost_micros: null,
        cost_source: null,
        next_run_at: now + FAR,
        deadline_at: now + FAR,
        started_at: null,
        finished_at: null,
      };
      const row = {
        ...task,
        id: taskId,
        generation_id: id,
        account_id: accountId,
        idx,
        created_at: now,
        updated_at: now,
        lease_owner: null,
        lease_expires_at: null,
        ...(state === 'queued' ? unfinished : {}),
        ...(state === 'cancelled'
          ? { ...unfinished, status: 'failed' as const, error: 'Canceled', finished_at: now }
          : {}),
        ...(state === 'completed' ? { finished_at: now } : {}),
      };
      await trx.insertInto('tasks').values(row).execute();
      if (state === 'completed')
        await trx
          .insertInto('assets')
          .values({
            ...asset,
            id: `ast_${taskId.slice(4)}`,
            generation_id: id,
            task_id: taskId,
            created_at: now,
          })
          .execute();
    }
  });
  await db
    .updateTable('generation_counts')
    .set((eb) => ({
      history_total: eb('history_total', '+', 1),
      saved_total: eb('saved_total', '+', 1),
      history_version: eb('history_version', '+', 1),
    }))
    .where('account_id', '=', accountId)
    .execute();
  return id;
}
