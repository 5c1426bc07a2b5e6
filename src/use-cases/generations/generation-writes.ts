import { sql, type Transaction } from 'kysely';
import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import { newTaskRows, type TaskTrace, taskInserts } from '../../capabilities/tasks/index.js';
import { compiledInserts, compiledOnce } from '../../infra/store/compiled-once.js';
import type { Db } from '../../infra/store/database.js';
import type { GenerationsTable } from '../../infra/store/schema/generations.js';
import type { Database } from '../../infra/store/schema.js';
import type { GenerateRequest } from './generate-request.js';
import type { HistoryVersions } from './history-versions.js';

/** Another capability's write that must commit (or roll back) with the generation's own. */
export type AlsoInTransaction<T> = (trx: Transaction<Database>, created: T) => Promise<void>;

/** What `GenerationWrites.create` is given: the checked request and what the service settled for it. */
export interface NewGeneration {
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
  /** The request's trace, which the tasks join (absent: not traced). */
  trace?: TaskTrace | undefined;
}

/**
 * The writes of generations: creating one with its tasks, rejecting and removing one, and moving the
 * account's history totals and version in the same transaction as every change a history page shows.
 */
export class GenerationWrites {
  // The writes of every generate request and every completed image: compiled once, not per request.
  private readonly insertGeneration;
  private readonly insertTasks;
  private readonly countDelta;
  private readonly versionMoved;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly versions: HistoryVersions,
  ) {
    this.insertGeneration = compiledInserts(db, 'generations');
    this.insertTasks = taskInserts(db);
    this.countDelta = countStatement(db);
    this.versionMoved = compiledOnce(1, (accountId: string) =>
      db
        .updateTable('generation_counts')
        .set({ history_version: sql<number>`${sql.ref('history_version')} + 1` })
        .where('account_id', '=', accountId),
    );
  }

  /** A task of the account completed (its image joins its history item): in the task's final write. */
  async taskCompleted(trx: Transaction<Database>, accountId: string): Promise<void> {
    this.versions.moved(accountId);
    await trx.executeQuery(this.versionMoved(accountId));
  }

  /** Another capability changed what a history page shows (a star, a collection): in its write. */
  async historyChanged(trx: Transaction<Database>, accountId: string): Promise<void> {
    await this.count(trx, accountId, { history: 0, saved: 0 });
  }

  /**
   * Writes the generation and one queued task per image in one transaction, before anything is
   * sent upstream. `leaseOwner` pre-leases the tasks to the engine that submits them inline.
   * `alsoInTransaction` commits with them (the webhook callback, the Idempotency-Key's answer).
   */
  async create(input: NewGeneration): Promise<{ generationId: string; taskIds: string[] }> {
    const now = this.clock.now();
    const { request } = input;
    const generation = generationRow(this.ids.next('gen'), input, now);
    const tasks = newTaskRows(this.ids, {
      generationId: generation.id,
      accountId: input.accountId,
      model: generation.model,
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
      ...(request.parent === undefined ? {} : { parentTaskId: request.parent.taskId }),
      ...(request.seed === undefined ? {} : { seed: request.seed }),
      ...(input.trace === undefined ? {} : { trace: input.trace }),
      ...(request.zeroRetention ? { zeroRetention: true } : {}),
    });
    const created = { generationId: generation.id, taskIds: tasks.map((t) => t.id) };
    await this.db.transaction().execute(async (trx) => {
      await trx.executeQuery(this.insertGeneration([generation]));
      await this.insertTasks(trx, tasks);
      await this.count(trx, input.accountId, { history: 1, saved: 1 });
      await input.alsoInTransaction?.(trx, created);
    });
    return created;
  }

  /**
   * Marks a generation whose every task the upstream refused at submit (kept, left out of history);
   * `alsoInTransaction` commits with it (forgetting the Idempotency-Key's answer).
   */
  async markRejected(generationId: string, alsoInTransaction?: AlsoInTransaction<void>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const rejected = await trx
        .updateTable('generations')
        .set({ rejected: 1 })
        .where('id', '=', generationId)
        .where('rejected', '=', 0)
        .returning(['account_id', 'deleted_at'])
        .executeTakeFirst();
      if (rejected)
        await this.count(trx, rejected.account_id, {
          history: -1,
          saved: rejected.deleted_at === null ? -1 : 0,
        });
      await alsoInTransaction?.(trx);
    });
  }

  /**
   * Marks an account's generation deleted from saved works; the row, its tasks and its files stay.
   * Returns false when the account has no such generation (a foreign id looks the same).
   */
  async markRemoved(accountId: string, generationId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('generations')
      .select(['id', 'deleted_at'])
      .where('id', '=', generationId)
      .where('account_id', '=', accountId)
      .where('rejected', '=', 0)
      .executeTakeFirst();
    if (!row) return false;
    if (row.deleted_at === null) {
      await this.db.transaction().execute(async (trx) => {
        const removed = await trx
          .updateTable('generations')
          .set({ deleted_at: this.clock.now() })
          .where('id', '=', generationId)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
        if (Number(removed.numUpdatedRows) === 1) await this.count(trx, accountId, { history: 0, saved: -1 });
      });
    }
    return true;
  }

  /** Moves an account's history and gallery totals, and its history version, in `trx`. */
  private count(
    trx: Transaction<Database>,
    accountId: string,
    delta: { history: number; saved: number },
  ): Promise<void> {
    this.versions.moved(accountId);
    return trx.executeQuery(this.countDelta(accountId, delta.history, delta.saved)).then(() => undefined);
  }
}

/** The generation's row as first written. */
function generationRow(id: string, input: NewGeneration, now: number): GenerationsTable {
  const { request } = input;
  return {
    id,
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
    ...(request.parent === undefined
      ? {}
      : {
          parent_id: request.parent.id,
          parent_task_id: request.parent.taskId,
          instruction: request.instruction ?? null,
        }),
    ...(request.action === undefined ? {} : actionColumns(request.action)),
    ...(request.zeroRetention ? { zero_retention: 1 } : {}),
  };
}

/** The action's columns: its name, and its settings (all but the name) as JSON. */
function actionColumns({ name, ...settings }: NonNullable<GenerateRequest['action']>) {
  return { action: name, action_json: JSON.stringify(settings) };
}

/** Moves an account's history and gallery totals and its history version (made at the first). */
function countStatement(db: Db) {
  return compiledOnce(3, (accountId: string, history: number, saved: number) =>
    db
      .insertInto('generation_counts')
      .values({ account_id: accountId, history_total: history, saved_total: saved, history_version: 1 })
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet({
          // The deltas as the insert bound them (each value is bound once in a compiled statement).
          history_total: sql<number>`${sql.ref('generation_counts.history_total')} + ${sql.ref('excluded.history_total')}`,
          saved_total: sql<number>`${sql.ref('generation_counts.saved_total')} + ${sql.ref('excluded.saved_total')}`,
          history_version: sql<number>`${sql.ref('generation_counts.history_version')} + 1`,
        }),
      ),
  );
}
