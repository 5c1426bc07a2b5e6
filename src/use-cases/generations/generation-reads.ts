import { sql } from 'kysely';
import type { BoundedWorkPool } from '../../base/concurrency/bounded-work-pool.js';
import type { SearchFilters } from '../../base/contract/website/shared.js';
import { compiledPerLength } from '../../infra/store/compiled-once.js';
import { type Db, dialectOf } from '../../infra/store/database.js';
import { removedCondition, savedCondition } from '../../infra/store/saved-condition.js';
import type { GenerationsTable } from '../../infra/store/schema/generations.js';
import type { SqliteReaders } from '../../infra/store/sqlite-readers.js';
import { filterConditions, hasFilters } from './search-filters.js';

/** The most versions a work's lineage lists. */
export const MAX_VERSIONS = 100;

/** Where a search of saved works reads: its node's pool, and on SQLite the reader threads. */
export interface SearchPlaces {
  /** The pool searches of saved works run in on this node (bounded: past it, 429). */
  searches?: BoundedWorkPool | undefined;
  /** SQLite only: threads with their own connection, where searches read off the event loop. */
  readers?: SqliteReaders | undefined;
}

/** One page of generations and the total the page is out of. */
export interface GenerationsPage {
  rows: GenerationsTable[];
  total: number;
}

/** A generation's request as written: what the engine carries out, and what an action starts from. */
const REQUEST_COLUMNS = [
  'id',
  'model',
  'prompt',
  'mode',
  'aspect',
  'aspect_from_reference',
  'image_size',
  'ref_keys_json',
  'mask_key',
  'quality',
  'action',
  'action_json',
] as const;

/** The reads of generations: history and gallery pages (searches included), single works, ownership. */
export class GenerationReads {
  private readonly dialect;

  /** The engine's read of its leased tasks' requests: compiled once per count of generations. */
  private readonly requestsQuery;

  constructor(
    private readonly db: Db,
    private readonly places: SearchPlaces,
  ) {
    this.dialect = dialectOf(db);
    this.requestsQuery = compiledPerLength(0, (_: [], ids: string[]) =>
      db.selectFrom('generations').select(REQUEST_COLUMNS).where('id', 'in', ids),
    );
  }

  /** What the task engine needs of its leased tasks' generations (the request they carry out). */
  async requestsOf(generationIds: string[]) {
    if (generationIds.length === 0) return [];
    return (await this.db.executeQuery(this.requestsQuery([], generationIds))).rows;
  }

  /** The settings an action on a work starts from (its request as written); undefined when not the account's. */
  async settingsOf(accountId: string, generationId: string) {
    return this.db
      .selectFrom('generations')
      .select([...REQUEST_COLUMNS, 'parent_task_id'])
      .where('id', '=', generationId)
      .where('account_id', '=', accountId)
      .where('rejected', '=', 0)
      .executeTakeFirst();
  }

  /** Which of `generationIds` are the account's generations (not rejected; deleted ones included). */
  async ownedBy(accountId: string, generationIds: string[]): Promise<Set<string>> {
    if (generationIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('generations')
      .select('id')
      .where('account_id', '=', accountId)
      .where('rejected', '=', 0)
      .where('id', 'in', generationIds)
      .execute();
    return new Set(rows.map((row) => row.id));
  }

  /**
   * One page of an account's generations, newest first (ties broken by id). History includes the
   * ones deleted from saved works (`deleted_at` set); the gallery passes `includeRemoved: false`.
   */
  async page(
    accountId: string,
    page: number,
    limit: number,
    options: { includeRemoved?: boolean; filters?: SearchFilters } = {},
  ): Promise<GenerationsPage> {
    const saved = options.includeRemoved === false;
    const { filters } = options;
    const searching = filters !== undefined && hasFilters(filters);
    // Two steps: the page's ids from an index alone (deep pages skip index entries, not rows),
    // then those rows. Conditions are literal so SQLite can use the gallery's partial index.
    // A search walks the same index (one account's rows, newest first, a date range narrowing
    // it) and tests prompt, model and mode on those rows only: see docs/website.md.
    const matching = this.db
      .selectFrom('generations')
      .where('account_id', '=', accountId)
      .where(saved ? savedCondition : sql<boolean>`${sql.ref('rejected')} = 0`)
      .$if(searching, (query) => query.where((eb) => eb.and(filterConditions(filters ?? {}, this.dialect))));
    const pageIds = matching
      .select('id')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit);
    if (!searching) return this.listedPage(accountId, saved, await pageIds.execute());
    // A search's two reads (the page's ids, the count of every match) take a place in this
    // node's search pool, and on SQLite run on a reader thread: the count walks every match of
    // the account, which must not hold the event loop. Then the page's rows are read by id.
    const countAll = matching.select((eb) => eb.fn.countAll<number>().as('n'));
    const { readers, searches } = this.places;
    const searchReads = async () => {
      if (readers) {
        const [ids, counts] = await readers.read([pageIds.compile(), countAll.compile()]);
        return {
          ids: (ids ?? []) as Array<{ id: string }>,
          total: (counts?.[0] as { n: number } | undefined)?.n,
        };
      }
      const [ids, counts] = await Promise.all([pageIds.execute(), countAll.executeTakeFirst()]);
      return { ids, total: counts?.n };
    };
    const { ids, total } = await (searches ? searches.run(searchReads) : searchReads());
    return { rows: await this.rowsInOrder(ids), total: Number(total ?? 0) };
  }

  /**
   * Whether `generationId` is a work of the account whose files the lifecycle removed (deleted past
   * its Undo window, or expired: `purged_at`): its reads answer 410. False for another account's.
   */
  async isPurged(accountId: string, generationId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('generations')
      .select('id')
      .where('id', '=', generationId)
      .where('account_id', '=', accountId)
      .where('purged_at', 'is not', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** One of the account's saved works (not rejected, not deleted) by id; undefined otherwise. */
  async savedOne(accountId: string, generationId: string): Promise<GenerationsTable | undefined> {
    return this.db
      .selectFrom('generations')
      .selectAll()
      .where('id', '=', generationId)
      .where('account_id', '=', accountId)
      .where(savedCondition)
      .executeTakeFirst();
  }

  /**
   * The ids of the account's generations deleted at or after `since`, most recent deletion first,
   * at most `limit`: read from the index of deleted works alone (migration 0037).
   */
  async removedSince(accountId: string, since: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('generations')
      .select('id')
      .where('account_id', '=', accountId)
      .where(removedCondition)
      .where('deleted_at', '>=', since)
      .orderBy('deleted_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /** A page without a search: its rows by id, out of the account's kept totals. */
  private async listedPage(
    accountId: string,
    saved: boolean,
    ids: Array<{ id: string }>,
  ): Promise<GenerationsPage> {
    const [rows, counts] = await Promise.all([
      this.rowsInOrder(ids),
      this.db
        .selectFrom('generation_counts')
        .select(['history_total', 'saved_total'])
        .where('account_id', '=', accountId)
        .executeTakeFirst(),
    ]);
    return { rows, total: Number((saved ? counts?.saved_total : counts?.history_total) ?? 0) };
  }

  /**
   * A work's versions (lineage): its ancestors up to the first work, then every work refined from
   * those, each a generation of the account that was not rejected, oldest first, at most
   * `MAX_VERSIONS`. Empty when `generationId` is not the account's. Deleted versions stay in the
   * chain (their rows are kept; history marks them removed).
   */
  async lineage(accountId: string, generationId: string): Promise<GenerationsTable[]> {
    const owned = (ids: string[]): Promise<GenerationsTable[]> =>
      this.db
        .selectFrom('generations')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('rejected', '=', 0)
        .where('id', 'in', ids)
        .execute();
    const [start] = await owned([generationId]);
    if (!start) return [];
    let root: GenerationsTable = start;
    const family = new Map<string, GenerationsTable>([[root.id, root]]);
    while (root.parent_id && family.size < MAX_VERSIONS) {
      const [up] = await owned([root.parent_id]);
      if (!up || family.has(up.id)) break;
      family.set(up.id, up);
      root = up;
    }
    // The ancestors already known (met on the way up) are still walked down from: their other
    // refinements, and the start's own, belong to the family too.
    const walked = new Set<string>();
    let frontier = [root.id];
    while (frontier.length > 0 && family.size < MAX_VERSIONS) {
      for (const id of frontier) walked.add(id);
      const children: GenerationsTable[] = await this.db
        .selectFrom('generations')
        .selectAll()
        .where('parent_id', 'in', frontier)
        .where('account_id', '=', accountId)
        .where('rejected', '=', 0)
        .limit(MAX_VERSIONS)
        .execute();
      frontier = [];
      for (const child of children) {
        if (walked.has(child.id) || (!family.has(child.id) && family.size >= MAX_VERSIONS)) continue;
        family.set(child.id, child);
        frontier.push(child.id);
      }
    }
    return [...family.values()].sort(
      (a, b) => Number(a.created_at) - Number(b.created_at) || a.id.localeCompare(b.id),
    );
  }

  /** The generations of `ids`, in their order. */
  private async rowsInOrder(ids: ReadonlyArray<{ id: string }>): Promise<GenerationsTable[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('generations')
      .selectAll()
      .where(
        'id',
        'in',
        ids.map((row) => row.id),
      )
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((row) => byId.get(row.id) ?? []);
  }
}
