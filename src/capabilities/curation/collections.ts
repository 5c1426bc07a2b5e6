import type { Collection } from '../../base/contract/curation.js';
import { MAX_COLLECTIONS } from '../../base/contract/curation.js';
import { Conflict, NotFound } from '../../base/domain/errors.js';
import type { CollectionsTable } from '../../infra/store/schema/curation.js';
import { type CurationDeps, setMarkRow } from './curation-store.js';

/** An account's named collections of works: listing, creating, renaming, deleting, membership. */

/** A collection's columns, as the listing selects and groups them (with its count of works). */
const COLLECTION_COLUMNS = [
  'collections.id',
  'collections.account_id',
  'collections.name',
  'collections.name_key',
  'collections.created_at',
  'collections.updated_at',
] as const;

/** The account's collections, by name, with how many works each holds. */
export async function listCollections({ db }: CurationDeps, accountId: string): Promise<Collection[]> {
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
}

/** A new empty collection; Conflict when the account has one of that name (ignoring case). */
export async function createCollection(
  { db, clock, ids }: CurationDeps,
  accountId: string,
  name: string,
): Promise<Collection> {
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
}

/** Renames a collection of the account. */
export async function renameCollection(
  deps: CurationDeps,
  accountId: string,
  collectionId: string,
  name: string,
): Promise<Collection> {
  const row = await collectionRow(deps, accountId, collectionId);
  const nameKey = name.toLowerCase();
  if (nameKey !== row.name_key) {
    const clash = await deps.db
      .selectFrom('collections')
      .select('id')
      .where('account_id', '=', accountId)
      .where('name_key', '=', nameKey)
      .executeTakeFirst();
    if (clash !== undefined) throw new Conflict(`A collection named "${name}" already exists`);
  }
  const updated = { ...row, name, name_key: nameKey, updated_at: deps.clock.now() };
  await deps.db
    .updateTable('collections')
    .set({ name, name_key: nameKey, updated_at: updated.updated_at })
    .where('id', '=', collectionId)
    .execute();
  return toCollection(updated, await countOf(deps, collectionId));
}

/** Deletes a collection of the account; its works stay. */
export async function removeCollection(
  deps: CurationDeps,
  accountId: string,
  collectionId: string,
): Promise<void> {
  await collectionRow(deps, accountId, collectionId);
  await deps.db.transaction().execute(async (trx) => {
    const held = await trx
      .deleteFrom('collection_items')
      .where('collection_id', '=', collectionId)
      .executeTakeFirst();
    await trx.deleteFrom('collections').where('id', '=', collectionId).execute();
    if (Number(held.numDeletedRows) > 0) await deps.works.historyChanged(trx, accountId);
  });
}

/** Adds a work to (`true`) or takes it out of a collection; doing it twice is harmless. */
export async function setMember(
  deps: CurationDeps,
  accountId: string,
  collectionId: string,
  generationId: string,
  member: boolean,
): Promise<void> {
  await collectionRow(deps, accountId, collectionId);
  await ownedWork(deps, accountId, generationId);
  await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
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
      await trx.updateTable('collections').set({ updated_at: now }).where('id', '=', collectionId).execute();
      await deps.works.historyChanged(trx, accountId);
    }
  });
}

/** The account's collection; NotFound when it has none of that id. */
export async function collectionRow(
  { db }: CurationDeps,
  accountId: string,
  collectionId: string,
): Promise<CollectionsTable> {
  const row = await db
    .selectFrom('collections')
    .selectAll()
    .where('id', '=', collectionId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (row === undefined) throw new NotFound('No such collection');
  return row;
}

/** How many works the collection holds. */
async function countOf({ db }: CurationDeps, collectionId: string): Promise<number> {
  const row = await db
    .selectFrom('collection_items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('collection_id', '=', collectionId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A collection as the wire shows it. */
const toCollection = (row: CollectionsTable, count: number): Collection => ({
  id: row.id,
  name: row.name,
  count,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

/** NotFound unless the work is the account's. */
export async function ownedWork(
  { works }: CurationDeps,
  accountId: string,
  generationId: string,
): Promise<void> {
  const owned = await works.ownedBy(accountId, [generationId]);
  if (!owned.has(generationId)) throw new NotFound('No such work');
}
