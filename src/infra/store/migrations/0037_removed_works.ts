import type { Kysely, Migration } from 'kysely';
import { removedCondition } from '../saved-condition.js';

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The creation view asks, at each look, which of the account's works were deleted since its
    // previous look (a deletion in another tab or on another device takes their cards away). Only
    // deleted generations are in this index, so that question reads just the recent deletions.
    await db.schema
      .createIndex('generations_removed')
      .on('generations')
      .columns(['account_id', 'deleted_at'])
      .where(removedCondition)
      .execute();
  },
};
