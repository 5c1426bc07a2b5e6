import { type Expression, type SqlBool, sql, type Transaction } from 'kysely';
import type { Collection } from '../../base/contract/curation.js';
import { MAX_COLLECTIONS } from '../../base/contract/curation.js';
import { Conflict, NotFound } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import type { Db } from '../../infra/store/database.js';
import type {
  CollectionItemsTable,
  CollectionsTable,
  Database,
  StarredWorksTable,
} from '../../infra/store/schema.js';

/**
 * Favourites and collections (issue 30): an account's stars on its works and its named collections
 * of works. This capability owns `starred_works`, `collections` and `collection_items`; works
 * (generations) belong to src/use-cases/generations, which it asks through `works` whether an id is one of
 * the account's. Another account's work or collection reads as a missing one (NotFound).
 */
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

/** A work's marks, as history items and saved works carry them. */
export interface WorkMarks {
  starred: boolean;
  collections: string[];
}

/** The marks of a work with no star and in no collection. */
export const NO_MARKS: WorkMarks = { starred: false, collections: [] };

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
async function setMarkRow(trx: Transaction<Database>, on: boolean, mark: MarkRow): Promise<boolean> {
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

/** A collection's columns, as the listing selects and groups them (with its count of works). */
const COLLECTION_COLUMNS = [
  'collections.id',
  'collections.account_id',
  'collections.name',
  'collections.name_key',
  'collections.created_at',
  'collections.updated_at',
] as const;

export function createCuration({ db, clock, ids, works }: CurationDeps) {
  async function ownedWork(accountId: string, generationId: string): Promise<void> {
    const owned = await works.ownedBy(accountId, [generationId]);
    if (!owned.has(generationId)) throw new NotFound('No such work');
  }

  async function collectionRow(accountId: string, collectionId: string): Promise<CollectionsTable> {
    const row = await db
      .selectFrom('collections')
      .selectAll()
      .where('id', '=', collectionId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (row === undefined) throw new NotFound('No such collection');
    return row;
  }

  async function countOf(collectionId: string): Promise<number> {
    const row = await db
      .selectFrom('collection_items')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('collection_id', '=', collectionId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  const toCollection = (row: CollectionsTable, count: number): Collection => ({
    id: row.id,
    name: row.name,
    count,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  });

  return {
    /** Stars (`true`) or unstars a work of the account; doing it twice is harmless. */
    async setStar(accountId: string, generationId: string, starred: boolean): Promise<void> {
      await ownedWork(accountId, generationId);
      await db.transaction().execute(async (trx) => {
        const changed = await setMarkRow(trx, starred, {
          table: 'starred_works',
          owner: 'account_id',
          row: { account_id: accountId, generation_id: generationId, created_at: clock.now() },
        });
        if (changed) await works.historyChanged(trx, accountId);
      });
    },

    /** The account's collections, by name, with how many works each holds. */
    async list(accountId: string): Promise<Collection[]> {
      const rows = await db
        .selectFrom('collections')
        .leftJoin('collection_items', 'collection_items.collection_id', 'collections.id')
        .select(COLLECTION_COLUMNS)
        .select((eb) => eb.fn.count<number>('collection_items.generation_id').as('n'))
        .where('collections.account_id', '=', accountId)
        .groupBy(COLLECTION_COLUMNS)
        .orderBy('collections.name_key')
        .orderBy('collections.id')
        .execute();
      return rows.map((row) => toCollection(row, Number(row.n)));
    },

    /** A new empty collection; Conflict when the account has one of that name (ignoring case). */
    async create(accountId: string, name: string): Promise<Collection> {
      const existing = await db
        .selectFrom('collections')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (Number(existing?.n ?? 0) >= MAX_COLLECTIONS)
        throw new Conflict(`An account keeps at most ${MAX_COLLECTIONS} collections`);
      const now = clock.now();
      const row: CollectionsTable = {
        id: ids.next('col'),
        account_id: accountId,
        name,
        name_key: name.toLowerCase(),
        created_at: now,
        updated_at: now,
      };
      // The unique (account, name) index decides, so two requests at once never both succeed.
      const inserted = await db
        .insertInto('collections')
        .values(row)
        .onConflict((oc) => oc.columns(['account_id', 'name_key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1)
        throw new Conflict(`A collection named "${name}" already exists`);
      return toCollection(row, 0);
    },

    /** Renames a collection of the account. */
    async rename(accountId: string, collectionId: string, name: string): Promise<Collection> {
      const row = await collectionRow(accountId, collectionId);
      const nameKey = name.toLowerCase();
      if (nameKey !== row.name_key) {
        const clash = await db
          .selectFrom('collections')
          .select('id')
          .where('account_id', '=', accountId)
          .where('name_key', '=', nameKey)
          .executeTakeFirst();
        if (clash !== undefined) throw new Conflict(`A collection named "${name}" already exists`);
      }
      const updated = { ...row, name, name_key: nameKey, updated_at: clock.now() };
      await db
        .updateTable('collections')
        .set({ name, name_key: nameKey, updated_at: updated.updated_at })
        .where('id', '=', collectionId)
        .execute();
      return toCollection(updated, await countOf(collectionId));
    },

    /** Deletes a collection of the account; its works stay. */
    async remove(accountId: string, collectionId: string): Promise<void> {
      await collectionRow(accountId, collectionId);
      await db.transaction().execute(async (trx) => {
        const held = await trx
          .deleteFrom('collection_items')
          .where('collection_id', '=', collectionId)
          .executeTakeFirst();
        await trx.deleteFrom('collections').where('id', '=', collectionId).execute();
        if (Number(held.numDeletedRows) > 0) await works.historyChanged(trx, accountId);
      });
    },

    /** Adds a work to (`true`) or takes it out of a collection; doing it twice is harmless. */
    async setMember(accountId: string, collectionId: string, generationId: string, member: boolean) {
      await collectionRow(accountId, collectionId);
      await ownedWork(accountId, generationId);
      await db.transaction().execute(async (trx) => {
        const now = clock.now();
        const changed = await setMarkRow(trx, member, {
          table: 'collection_items',
          owner: 'collection_id',
          row: {
            collection_id: collectionId,
            generation_id: generationId,
            account_id: accountId,
            added_at: now,
          },
        });
        if (changed) {
          await trx
            .updateTable('collections')
            .set({ updated_at: now })
            .where('id', '=', collectionId)
            .execute();
          await works.historyChanged(trx, accountId);
        }
      });
    },

    /** Throws NotFound unless `collectionId` is one of the account's (a listing filter's check). */
    async assertCollection(accountId: string, collectionId: string): Promise<void> {
      await collectionRow(accountId, collectionId);
    },

    /** The marks of `generationIds` (works of the account), by id; unmarked works are absent. */
    async marksOf(accountId: string, generationIds: string[]): Promise<Map<string, WorkMarks>> {
      const marks = new Map<string, WorkMarks>();
      if (generationIds.length === 0) return marks;
      const mark = (id: string) => {
        let known = marks.get(id);
        if (known === undefined) {
          known = { starred: false, collections: [] };
          marks.set(id, known);
        }
        return known;
      };
      const [stars, members] = await Promise.all([
        db
          .selectFrom('starred_works')
          .select('generation_id')
          .where('account_id', '=', accountId)
          .where('generation_id', 'in', generationIds)
          .execute(),
        db
          .selectFrom('collection_items')
          .select(['generation_id', 'collection_id'])
          .where('account_id', '=', accountId)
          .where('generation_id', 'in', generationIds)
          .orderBy('added_at')
          .orderBy('collection_id')
          .execute(),
      ]);
      for (const star of stars) mark(star.generation_id).starred = true;
      for (const member of members) mark(member.generation_id).collections.push(member.collection_id);
      return marks;
    },
  };
}

export type Curation = ReturnType<typeof createCuration>;

/**
 * The listing conditions of a star and a collection, on the `generations` table, for the
 * generations capability's page query (saved works, history, the library's results): each an
 * `exists` over this capability's primary keys, for the row's own account.
 */
export function curationConditions(filters: {
  starred?: true | undefined;
  collection?: string | undefined;
}): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [];
  if (filters.starred)
    conditions.push(
      sql<SqlBool>`exists (select 1 from starred_works where starred_works.account_id = ${sql.ref('generations.account_id')} and starred_works.generation_id = ${sql.ref('generations.id')})`,
    );
  if (filters.collection !== undefined)
    conditions.push(
      sql<SqlBool>`exists (select 1 from collection_items where collection_items.collection_id = ${filters.collection} and collection_items.generation_id = ${sql.ref('generations.id')} and collection_items.account_id = ${sql.ref('generations.account_id')})`,
    );
  return conditions;
}
