import type { Transaction } from 'kysely';
import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import type { Db } from '../../infra/store/database.js';
import type { CollectionItemsTable, StarredWorksTable } from '../../infra/store/schema/curation.js';
import type { Database } from '../../infra/store/schema.js';

/** What curation is built over: the store, and the generations' answers about works. */
export interface CurationDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  works: {
    /** Which of `generationIds` are works of the account (not rejected; deleted ones included). */
    ownedBy(accountId: string, generationIds: string[]): Promise<Set<string>>;
    /**
     * A change of what a history page shows (a star, a collection's membership), in `trx`: the
     * account's history version moves, so kept history pages are read again.
     */
    historyChanged(trx: Transaction<Database>, accountId: string): Promise<void>;
  };
}

/**
 * A row that marks a work, with the column that says whose mark it is: a star (the account's) or
 * a collection's membership (the collection's).
 */
type MarkRow =
  | { table: 'starred_works'; owner: 'account_id'; row: StarredWorksTable }
  | { table: 'collection_items'; owner: 'collection_id'; row: CollectionItemsTable };

/** Both mark tables as one shape: the columns the statements below use. */
type MarkTables = Record<
  MarkRow['table'],
  { generation_id: string; account_id: string; collection_id?: string }
>;

/**
 * Puts a mark row in place (`on`; one already there is left alone) or takes it out, by its owner
 * and work; whether a row changed, so a repeat moves nothing.
 */
export async function setMarkRow(trx: Transaction<Database>, on: boolean, mark: MarkRow): Promise<boolean> {
  const marks = trx as unknown as Transaction<MarkTables>;
  const { table, owner, row } = mark;
  if (on) {
    const inserted = await marks
      .insertInto(table)
      .values(row)
      .onConflict((oc) => oc.columns([owner, 'generation_id']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  const deleted = await marks
    .deleteFrom(table)
    .where(owner, '=', mark.table === 'starred_works' ? mark.row.account_id : mark.row.collection_id)
    .where('generation_id', '=', row.generation_id)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}
