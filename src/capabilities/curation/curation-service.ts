import { type Expression, type SqlBool, sql } from 'kysely';
import type { Collection } from '../../base/contract/curation.js';
import type { Db } from '../../infra/store/database.js';
import {
  collectionRow,
  createCollection,
  listCollections,
  ownedWork,
  removeCollection,
  renameCollection,
  setMember,
} from './collections.js';
import { type CurationDeps, setMarkRow } from './curation-store.js';

/** A work's marks, as history items and saved works carry them. */
export interface WorkMarks {
  starred: boolean;
  collections: string[];
}

/** The marks of a work with no star and in no collection. */
export const NO_MARKS: WorkMarks = { starred: false, collections: [] };

/**
 * Favourites and collections (issue 30): an account's stars on its works and its named collections
 * of works. This capability owns `starred_works`, `collections` and `collection_items`; works
 * (generations) belong to src/use-cases/generations, which it asks through `works` whether an id is one of
 * the account's. Another account's work or collection reads as a missing one (NotFound). Stars and
 * marks are here; collections in collections.ts; the mark statement both share in curation-store.ts.
 */
export function createCuration(deps: CurationDeps) {
  return {
    /** Stars (`true`) or unstars a work of the account; doing it twice is harmless. */
    setStar: (accountId: string, generationId: string, starred: boolean): Promise<void> =>
      setStar(deps, accountId, generationId, starred),

    /** The account's collections, by name, with how many works each holds. */
    list: (accountId: string): Promise<Collection[]> => listCollections(deps, accountId),

    /** A new empty collection; Conflict when the account has one of that name (ignoring case). */
    create: (accountId: string, name: string): Promise<Collection> => createCollection(deps, accountId, name),

    /** Renames a collection of the account. */
    rename: (accountId: string, collectionId: string, name: string): Promise<Collection> =>
      renameCollection(deps, accountId, collectionId, name),

    /** Deletes a collection of the account; its works stay. */
    remove: (accountId: string, collectionId: string): Promise<void> =>
      removeCollection(deps, accountId, collectionId),

    /** Adds a work to (`true`) or takes it out of a collection; doing it twice is harmless. */
    setMember: (accountId: string, collectionId: string, generationId: string, member: boolean) =>
      setMember(deps, accountId, collectionId, generationId, member),

    /** Throws NotFound unless `collectionId` is one of the account's (a listing filter's check). */
    async assertCollection(accountId: string, collectionId: string): Promise<void> {
      await collectionRow(deps, accountId, collectionId);
    },

    /** The marks of `generationIds` (works of the account), by id; unmarked works are absent. */
    marksOf: (accountId: string, generationIds: string[]): Promise<Map<string, WorkMarks>> =>
      marksOf(deps.db, accountId, generationIds),
  };
}

/** Stars (`true`) or unstars a work of the account; doing it twice is harmless. */
async function setStar(
  deps: CurationDeps,
  accountId: string,
  generationId: string,
  starred: boolean,
): Promise<void> {
  await ownedWork(deps, accountId, generationId);
  await deps.db.transaction().execute(async (trx) => {
    const changed = await setMarkRow(trx, starred, {
      table: 'starred_works',
      owner: 'account_id',
      row: { account_id: accountId, generation_id: generationId, created_at: deps.clock.now() },
    });
    if (changed) await deps.works.historyChanged(trx, accountId);
  });
}

/** The marks of `generationIds` (works of the account), by id; unmarked works are absent. */
async function marksOf(db: Db, accountId: string, generationIds: string[]): Promise<Map<string, WorkMarks>> {
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
