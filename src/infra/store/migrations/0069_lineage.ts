import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Lineage (issue 44): a generation may refine an earlier work of the account. It names the work
 * (`parent_id`), the image refined (`parent_task_id`) and the turn's instruction; each of its tasks
 * names the image it refines too, so a task record carries the lineage without a join. A work's
 * versions are found by `parent_id` (the index); deleting a version never touches its parent.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('generations').addColumn('parent_id', 'text').execute();
    await db.schema.alterTable('generations').addColumn('parent_task_id', 'text').execute();
    await db.schema.alterTable('generations').addColumn('instruction', 'text').execute();
    await db.schema.alterTable('tasks').addColumn('parent_task_id', 'text').execute();
    await db.schema
      .createIndex('generations_parent')
      .on('generations')
      .columns(['parent_id'])
      .where(sql.ref('parent_id'), 'is not', null)
      .execute();
  },
};
