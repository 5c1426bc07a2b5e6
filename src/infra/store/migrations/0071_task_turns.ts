import type { Kysely, Migration } from 'kysely';

/**
 * Kept conversation turns (issue 44): for a task whose upstream answered with a conversation turn
 * (Gemini 3 image models sign their answer's parts with `thoughtSignature`s), the turn as it must
 * be sent back to refine that image: the user's parts (the prompt, references by blob key) and
 * the model's parts (texts and signatures, the image by the task's result blob key, never bytes).
 * Read only by the engine, for a later task of the same account that refines this image on the
 * same provider; never shown in an API answer.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('task_turns')
      .addColumn('task_id', 'text', (col) => col.primaryKey())
      .addColumn('account_id', 'text', (col) => col.notNull())
      .addColumn('provider', 'text', (col) => col.notNull())
      .addColumn('turn_json', 'text', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .execute();
  },
};
