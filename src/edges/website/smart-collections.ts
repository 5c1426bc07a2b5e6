import type { SmartCollection, SmartFilters } from '../../base/contract/smart-collections.js';
import { MAX_SMART_COLLECTIONS } from '../../base/contract/smart-collections.js';
import { Conflict, InvalidInput, NotFound } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import { type IdGenerator, randomIds } from '../../base/runtime/ids.js';
import type { Curation } from '../../capabilities/curation/index.js';
import type { Db } from '../../infra/store/database.js';
import type { SmartCollectionsTable } from '../../infra/store/schema/curation.js';

/** What the smart collections are kept with. */
interface SmartDeps {
  db: Db;
  clock: Clock;
  curation: Pick<Curation, 'assertCollection'>;
  ids: IdGenerator;
}

/**
 * Smart collections (issue 37): saved searches of Saved works, per account (the website's table,
 * migration 0042). Another account's reads as a missing one (NotFound); a collection filter must
 * name a collection of the account.
 */
export function createSmartCollections({
  db,
  clock,
  curation,
  ids = randomIds,
}: {
  db: Db;
  clock: Clock;
  curation: Pick<Curation, 'assertCollection'>;
  ids?: IdGenerator;
}) {
  const deps: SmartDeps = { db, clock, curation, ids };
  return {
    /** The account's smart collections, by name. */
    list: (accountId: string) => listSmart(db, accountId),
    /** Saves a search under a new name; Conflict on a name the account uses or past the cap. */
    create: (accountId: string, name: string, filters: SmartFilters) =>
      createSmart(deps, accountId, name, filters),
    /** Renames a smart collection, or saves another search in it, or both. */
    update: (
      accountId: string,
      id: string,
      change: { name?: string | undefined; filters?: SmartFilters | undefined },
    ) => updateSmart(deps, accountId, id, change),
    /** Deletes a smart collection of the account (its works are untouched: it only ever held a search). */
    remove: (accountId: string, id: string) => removeSmart(db, accountId, id),
  };
}

export type SmartCollections = ReturnType<typeof createSmartCollections>;

function toSmart(row: SmartCollectionsTable): SmartCollection {
  return {
    id: row.id,
    name: row.name,
    filters: JSON.parse(row.filters_json) as SmartFilters,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

const clash = (name: string) => new Conflict(`A smart collection named "${name}" already exists`);

async function rowOf(db: Db, accountId: string, id: string): Promise<SmartCollectionsTable> {
  const row = await db
    .selectFrom('smart_collections')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (row === undefined) throw new NotFound('No such smart collection');
  return row;
}

/** A collection filter must name a collection of the account. */
async function checkFilters(
  curation: SmartDeps['curation'],
  accountId: string,
  filters: SmartFilters,
): Promise<void> {
  if (filters.collection === undefined) return;
  try {
    await curation.assertCollection(accountId, filters.collection);
  } catch (error) {
    if (error instanceof NotFound)
      throw new InvalidInput('filters.collection names no collection of yours', 'filters.collection');
    throw error;
  }
}

async function listSmart(db: Db, accountId: string): Promise<SmartCollection[]> {
  const rows = await db
    .selectFrom('smart_collections')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('name_key')
    .orderBy('id')
    .execute();
  return rows.map(toSmart);
}

async function createSmart(
  { db, clock, curation, ids }: SmartDeps,
  accountId: string,
  name: string,
  filters: SmartFilters,
): Promise<SmartCollection> {
  await checkFilters(curation, accountId, filters);
  const held = await db
    .selectFrom('smart_collections')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (Number(held?.n ?? 0) >= MAX_SMART_COLLECTIONS)
    throw new Conflict(`An account keeps at most ${MAX_SMART_COLLECTIONS} smart collections`);
  const now = clock.now();
  const row: SmartCollectionsTable = {
    id: ids.next('scl'),
    account_id: accountId,
    name,
    name_key: name.toLowerCase(),
    filters_json: JSON.stringify(filters),
    created_at: now,
    updated_at: now,
  };
  // The unique (account, name) index decides, so two requests at once never both succeed.
  const inserted = await db
    .insertInto('smart_collections')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'name_key']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) throw clash(name);
  return toSmart(row);
}

async function updateSmart(
  { db, clock, curation }: SmartDeps,
  accountId: string,
  id: string,
  change: { name?: string | undefined; filters?: SmartFilters | undefined },
): Promise<SmartCollection> {
  const row = await rowOf(db, accountId, id);
  if (change.filters !== undefined) await checkFilters(curation, accountId, change.filters);
  const name = change.name ?? row.name;
  const nameKey = name.toLowerCase();
  if (nameKey !== row.name_key) {
    const taken = await db
      .selectFrom('smart_collections')
      .select('id')
      .where('account_id', '=', accountId)
      .where('name_key', '=', nameKey)
      .executeTakeFirst();
    if (taken !== undefined) throw clash(name);
  }
  const set = {
    name,
    name_key: nameKey,
    filters_json: change.filters === undefined ? row.filters_json : JSON.stringify(change.filters),
    updated_at: clock.now(),
  };
  await db
    .updateTable('smart_collections')
    .set(set)
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .execute();
  return toSmart({ ...row, ...set });
}

async function removeSmart(db: Db, accountId: string, id: string): Promise<void> {
  const deleted = await db
    .deleteFrom('smart_collections')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (Number(deleted.numDeletedRows) === 0) throw new NotFound('No such smart collection');
}
