import { sql, type Transaction } from 'kysely';
import type { BoundedWorkPool } from '../../base/concurrency/bounded-work-pool.js';
import type { SearchFilters } from '../../base/contract/website.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import { insertTasks, newTaskRows } from '../../capabilities/tasks/task-insert.js';
import { compiledOnce } from '../../infra/store/compiled-once.js';
import { type Db, dialectOf } from '../../infra/store/database.js';
import { removedCondition, savedCondition } from '../../infra/store/saved-condition.js';
import type { Database, GenerationsTable } from '../../infra/store/schema.js';
import type { SqliteReaders } from '../../infra/store/sqlite-readers.js';
import type { GenerateRequest } from './generate-request.js';
import { createHistoryVersions } from './history-versions.js';
import { filterConditions, hasFilters } from './search-filters.js';

/** Another capability's write that must commit (or roll back) with the generation's own. */
export type AlsoInTransaction<T> = (trx: Transaction<Database>, created: T) => Promise<void>;

/** Store queries for generations (one per generate request) and the creation of their tasks. */
export function createGenerationsRepository({
  db,
  clock,
  ids,
  searches,
  readers,
}: {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  /** The pool searches of saved works run in on this node (bounded: past it, 429). */
  searches?: BoundedWorkPool;
  /** SQLite only: threads with their own connection, where searches read off the event loop. */
  readers?: SqliteReaders;
}) {
  const dialect = dialectOf(db);

  /** The generations of `ids`, in their order. */
  async function rowsInOrder(ids: ReadonlyArray<{ id: string }>) {
    if (ids.length === 0) return [];
    const rows = await db
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
  const historyVersionOf = compiledOnce(1, (accountId: string) =>
    db.selectFrom('generation_counts').select(['history_version']).where('account_id', '=', accountId),
  );
  const versions = createHistoryVersions(db, {
    async one(accountId) {
      const [row] = (await db.executeQuery(historyVersionOf(accountId))).rows;
      return Number(row?.history_version ?? 0);
    },
    async many(accountIds) {
      const rows = await db
        .selectFrom('generation_counts')
        .select(['account_id', 'history_version'])
        .where('account_id', '=', sql<string>`any(${accountIds})`)
        .execute();
      return new Map(rows.map((row) => [row.account_id, Number(row.history_version)]));
    },
  });
  /** Moves an account's history and gallery totals, and its history version, in `trx`. */
  const count = (
    trx: Transaction<Database>,
    accountId: string,
    delta: { history: number; saved: number },
  ) => {
    versions.moved(accountId);
    return countGeneration(trx, accountId, delta);
  };
  return {
    /**
     * The account's history version: it moves in the transaction of every change a history page
     * can show (0 before the account's first generation). At once when it is kept (SQLite).
     */
    historyVersion: versions.current,

    /** What the task engine needs of its leased tasks' generations (the request they carry out). */
    async requestsOf(generationIds: string[]) {
      if (generationIds.length === 0) return [];
      return db
        .selectFrom('generations')
        .select([
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
        ])
        .where('id', 'in', generationIds)
        .execute();
    },

    /** A task of the account completed (its image joins its history item): in the task's final write. */
    async taskCompleted(trx: Transaction<Database>, accountId: string): Promise<void> {
      versions.moved(accountId);
      await trx
        .updateTable('generation_counts')
        .set({ history_version: sql<number>`${sql.ref('history_version')} + 1` })
        .where('account_id', '=', accountId)
        .execute();
    },

    /** Another capability changed what a history page shows (a star, a collection): in its write. */
    async historyChanged(trx: Transaction<Database>, accountId: string): Promise<void> {
      versions.moved(accountId);
      await countGeneration(trx, accountId, { history: 0, saved: 0 });
    },

    /** Which of `generationIds` are the account's generations (not rejected; deleted ones included). */
    async ownedBy(accountId: string, generationIds: string[]): Promise<Set<string>> {
      if (generationIds.length === 0) return new Set();
      const rows = await db
        .selectFrom('generations')
        .select('id')
        .where('account_id', '=', accountId)
        .where('rejected', '=', 0)
        .where('id', 'in', generationIds)
        .execute();
      return new Set(rows.map((row) => row.id));
    },

    /**
     * Writes the generation and one queued task per image in one transaction, before anything is
     * sent upstream. `leaseOwner` pre-leases the tasks to the engine that submits them inline.
     * `alsoInTransaction` commits with them (the webhook callback, the Idempotency-Key's answer).
     */
    async create(input: {
      accountId: string;
      source: 'api' | 'web';
      request: GenerateRequest;
      refKeys: string[];
      /** Blob key of an edit's stored mask. */
      maskKey?: string;
      /** The most each image can cost (micro-dollars), reserved on its task against budgets. */
      costReservedMicros?: number;
      costCapMicros?: number;
      /** The API key that asked (`key_…`): its tasks count against its budgets. */
      apiKeyId?: string | null;
      deadlineMs: number;
      leaseOwner: string | null;
      leaseMs: number;
      alsoInTransaction?: AlsoInTransaction<{ generationId: string; taskIds: string[] }> | undefined;
    }): Promise<{ generationId: string; taskIds: string[] }> {
      const now = clock.now();
      const { request } = input;
      const generation: GenerationsTable = {
        id: ids.next('gen'),
        account_id: input.accountId,
        source: input.source,
        prompt: request.prompt,
        model: request.model.id,
        mode: request.mode,
        aspect: request.aspect,
        aspect_from_reference: request.keepReferenceAspect ? 1 : 0,
        image_size: request.imageSize,
        image_count: request.count,
        refs_json: JSON.stringify(request.imageUrls),
        ref_keys_json: JSON.stringify(input.refKeys),
        mask_key: input.maskKey ?? null,
        quality: request.quality ?? null,
        rejected: 0,
        created_at: now,
        deleted_at: null,
      };
      const tasks = newTaskRows(ids, {
        generationId: generation.id,
        accountId: input.accountId,
        count: request.count,
        provider: request.model.provider,
        upstreamModel: request.model.upstreamModel,
        now,
        deadlineMs: input.deadlineMs,
        leaseOwner: input.leaseOwner,
        leaseMs: input.leaseMs,
        ...(request.partialImages ? { partialImages: request.partialImages } : {}),
        costReservedMicros: input.costReservedMicros ?? 0,
        ...(input.costCapMicros === undefined ? {} : { costCapMicros: input.costCapMicros }),
        apiKeyId: input.apiKeyId ?? null,
      });
      const created = { generationId: generation.id, taskIds: tasks.map((t) => t.id) };
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('generations').values(generation).execute();
        await insertTasks(trx, tasks);
        await count(trx, input.accountId, { history: 1, saved: 1 });
        await input.alsoInTransaction?.(trx, created);
      });
      return created;
    },

    /**
     * Marks a generation whose every task the upstream refused at submit (kept, left out of history);
     * `alsoInTransaction` commits with it (forgetting the Idempotency-Key's answer).
     */
    async markRejected(generationId: string, alsoInTransaction?: AlsoInTransaction<void>): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const rejected = await trx
          .updateTable('generations')
          .set({ rejected: 1 })
          .where('id', '=', generationId)
          .where('rejected', '=', 0)
          .returning(['account_id', 'deleted_at'])
          .executeTakeFirst();
        if (rejected)
          await count(trx, rejected.account_id, {
            history: -1,
            saved: rejected.deleted_at === null ? -1 : 0,
          });
        await alsoInTransaction?.(trx);
      });
    },

    /**
     * One page of an account's generations, newest first (ties broken by id). History includes the
     * ones deleted from saved works (`deleted_at` set); the gallery passes `includeRemoved: false`.
     */
    async page(
      accountId: string,
      page: number,
      limit: number,
      options: { includeRemoved?: boolean; filters?: SearchFilters } = {},
    ) {
      const saved = options.includeRemoved === false;
      const { filters } = options;
      const searching = filters !== undefined && hasFilters(filters);
      // Two steps: the page's ids from an index alone (deep pages skip index entries, not rows),
      // then those rows. Conditions are literal so SQLite can use the gallery's partial index.
      // A search walks the same index (one account's rows, newest first, a date range narrowing
      // it) and tests prompt, model and mode on those rows only: see docs/website.md.
      const matching = db
        .selectFrom('generations')
        .where('account_id', '=', accountId)
        .where(saved ? savedCondition : sql<boolean>`${sql.ref('rejected')} = 0`)
        .$if(searching, (query) => query.where((eb) => eb.and(filterConditions(filters ?? {}, dialect))));
      const pageIds = matching
        .select('id')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset((page - 1) * limit);
      if (!searching) {
        const ids = await pageIds.execute();
        const [rows, counts] = await Promise.all([
          rowsInOrder(ids),
          db
            .selectFrom('generation_counts')
            .select(['history_total', 'saved_total'])
            .where('account_id', '=', accountId)
            .executeTakeFirst(),
        ]);
        return { rows, total: Number((saved ? counts?.saved_total : counts?.history_total) ?? 0) };
      }
      // A search's two reads (the page's ids, the count of every match) take a place in this
      // node's search pool, and on SQLite run on a reader thread: the count walks every match of
      // the account, which must not hold the event loop. Then the page's rows are read by id.
      const countAll = matching.select((eb) => eb.fn.countAll<number>().as('n'));
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
      return { rows: await rowsInOrder(ids), total: Number(total ?? 0) };
    },

    /** One of the account's saved works (not rejected, not deleted) by id; undefined otherwise. */
    async savedOne(accountId: string, generationId: string): Promise<GenerationsTable | undefined> {
      return db
        .selectFrom('generations')
        .selectAll()
        .where('id', '=', generationId)
        .where('account_id', '=', accountId)
        .where(savedCondition)
        .executeTakeFirst();
    },

    /**
     * Marks an account's generation deleted from saved works; the row, its tasks and its files stay.
     * Returns false when the account has no such generation (a foreign id looks the same).
     */
    async markRemoved(accountId: string, generationId: string): Promise<boolean> {
      const row = await db
        .selectFrom('generations')
        .select(['id', 'deleted_at'])
        .where('id', '=', generationId)
        .where('account_id', '=', accountId)
        .where('rejected', '=', 0)
        .executeTakeFirst();
      if (!row) return false;
      if (row.deleted_at === null) {
        await db.transaction().execute(async (trx) => {
          const removed = await trx
            .updateTable('generations')
            .set({ deleted_at: clock.now() })
            .where('id', '=', generationId)
            .where('deleted_at', 'is', null)
            .executeTakeFirst();
          if (Number(removed.numUpdatedRows) === 1) await count(trx, accountId, { history: 0, saved: -1 });
        });
      }
      return true;
    },

    /**
     * The ids of the account's generations deleted at or after `since`, most recent deletion first,
     * at most `limit`: read from the index of deleted works alone (migration 0037).
     */
    async removedSince(accountId: string, since: number, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('generations')
        .select('id')
        .where('account_id', '=', accountId)
        .where(removedCondition)
        .where('deleted_at', '>=', since)
        .orderBy('deleted_at', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },
  };
}

/**
 * A generation's catalog model, as a subquery another capability's write can embed (usage counts a
 * finished task under its generation's model, in the task's final write): the one way usage reads it.
 */
export function generationModel(executor: Db, generationId: string) {
  return executor.selectFrom('generations').select('model').where('id', '=', generationId).$asScalar();
}

/** Moves an account's history and gallery totals, inside the transaction that changes them. */
async function countGeneration(
  trx: Transaction<Database>,
  accountId: string,
  delta: { history: number; saved: number },
): Promise<void> {
  await trx
    .insertInto('generation_counts')
    .values({
      account_id: accountId,
      history_total: delta.history,
      saved_total: delta.saved,
      history_version: 1,
    })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({
        history_total: sql<number>`${sql.ref('generation_counts.history_total')} + ${delta.history}`,
        saved_total: sql<number>`${sql.ref('generation_counts.saved_total')} + ${delta.saved}`,
        history_version: sql<number>`${sql.ref('generation_counts.history_version')} + 1`,
      }),
    )
    .execute();
}

export type GenerationsRepository = ReturnType<typeof createGenerationsRepository>;
