import type { Core } from '../../src/core.js';

/**
 * Many saved works fast, for the scale tests (issue 30, 5,000 works): the account's one real work
 * (made through the API, so its image file exists) is copied `copies` times straight into the
 * store — its generation, its completed task and its result asset, each with new ids and an older
 * date — and the account's counts are moved as the repositories would. Every copy shows the same
 * image file (renditions included), which is all a gallery's scrolling needs.
 */
export async function seedCopiesOfWork(core: Core, generationId: string, copies: number): Promise<void> {
  const db = core.db;
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
  const BATCH = 100;
  for (let from = 0; from < copies; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, copies - from) }, (_, i) => from + i);
    const at = (n: number) => Number(generation.created_at) - (n + 1) * 1000;
    const suffix = (n: number) => `seed${String(n).padStart(6, '0')}`;
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('generations')
        .values(
          batch.map((n) => ({
            ...generation,
            id: `gen_${suffix(n)}`,
            prompt: `seeded work ${n + 1}`,
            created_at: at(n),
          })),
        )
        .execute();
      await trx
        .insertInto('tasks')
        .values(
          batch.map((n) => ({
            ...task,
            id: `tsk_${suffix(n)}`,
            generation_id: `gen_${suffix(n)}`,
            created_at: at(n),
            updated_at: at(n),
            finished_at: at(n),
          })),
        )
        .execute();
      await trx
        .insertInto('assets')
        .values(
          batch.map((n) => ({
            ...asset,
            id: `ast_${suffix(n)}`,
            generation_id: `gen_${suffix(n)}`,
            task_id: `tsk_${suffix(n)}`,
            created_at: at(n),
          })),
        )
        .execute();
    });
  }
  await db
    .updateTable('generation_counts')
    .set((eb) => ({
      history_total: eb('history_total', '+', copies),
      saved_total: eb('saved_total', '+', copies),
      history_version: eb('history_version', '+', 1),
    }))
    .where('account_id', '=', generation.account_id)
    .execute();
}
