import { isFinalStatus } from '../../base/domain/task-status.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import type { GenerationsTable } from '../../infra/store/schema/generations.js';
import type { TasksTable } from '../../infra/store/schema/tasks.js';
import { createTaskClaims } from './task-claims.js';
import type { OnTaskFinished } from './task-finish.js';
import { createTaskReads, type PendingCards } from './task-reads.js';
import { isUnfinished } from './unfinished-tasks.js';

export type { TaskWithRequest } from './pending-tasks.js';
export type { TaskRecordRow } from './task-reads.js';

export type TaskRow = TasksTable;
export type TaskPatch = Partial<
  Pick<
    TasksTable,
    | 'status'
    | 'provider'
    | 'upstream_model'
    | 'progress'
    | 'error'
    | 'image_url'
    | 'blob_key'
    | 'width'
    | 'height'
    | 'content_type'
    | 'bytes'
    | 'upstream_id'
    | 'attempts'
    | 'submits'
    | 'needs_reconcile'
    | 'polls'
    | 'next_run_at'
    | 'lease_owner'
    | 'lease_expires_at'
    | 'started_at'
    | 'finished_at'
    | 'waiting_for'
    | 'upstream_queue_position'
    | 'capacity_pool'
    | 'waiting_since'
    | 'partial_frames'
    | 'usage_json'
    | 'cost_micros'
    | 'cost_source'
    | 'cost_absorbed_micros'
    | 'fallbacks_json'
    | 'upstream_key_id'
  >
>;

/** A leased task with what the engine needs from its generation. */
export interface LeasedTask {
  task: TaskRow;
  generation: Pick<
    GenerationsTable,
    | 'id'
    | 'model'
    | 'prompt'
    | 'mode'
    | 'aspect'
    | 'aspect_from_reference'
    | 'image_size'
    | 'ref_keys_json'
    | 'mask_key'
    | 'quality'
    | 'action'
    | 'action_json'
  >;
  /**
   * Leased by this worker in the transaction that created it, moments ago (a direct hand-off): the
   * lease needs no proof by a write before the upstream call.
   */
  fresh?: boolean;
}

export { isUnfinished };

/** What the engine needs of leased tasks' generations (the generations capability reads them). */
type RequestsOf = (generationIds: string[]) => Promise<Array<LeasedTask['generation']>>;

/**
 * Store queries for tasks: the read side (task-reads.ts) and the engine's claims and lease-guarded
 * writes (task-claims.ts), with the claimed tasks' generations. Only the task engine calls the
 * writing ones.
 */
export function createTasksRepository({
  db,
  clock,
  onFinished,
  requestsOf,
  pendingCards,
}: {
  db: Db;
  clock: Clock;
  onFinished?: OnTaskFinished | undefined;
  /** What the engine needs of leased tasks' generations (the generations capability reads them). */
  requestsOf?: RequestsOf;
  /** The creation view's cards (the creations read model joins tasks with their generations). */
  pendingCards?: PendingCards;
}) {
  const { claimDue, claimIds, updateLeasedRow, ...claims } = createTaskClaims({ db, clock, onFinished });
  const reads = createTaskReads({ db, clock, pendingCards });
  return {
    ...reads,
    ...claims,

    /** Leases up to `limit` due tasks for `owner`, in fair turns between accounts, with their generations. */
    leaseDue: async (owner: string, leaseMs: number, limit: number): Promise<LeasedTask[]> =>
      withGenerations(requestsOf, await claimDue(owner, leaseMs, limit)),

    /**
     * The account's tasks among `taskIds` that `owner` leased when it created them (the hand-off of
     * a synchronous provider's fresh tasks), with their generations: read, not written.
     */
    heldIds: async (owner: string, accountId: string, taskIds: readonly string[]): Promise<LeasedTask[]> => {
      const rows = await reads.findManyForAccount(accountId, taskIds);
      const held = rows.filter((row) => row.lease_owner === owner && !isFinalStatus(row.status));
      return (await withGenerations(requestsOf, held)).map((leased) => ({ ...leased, fresh: true }));
    },

    /** Leases specific tasks (fresh ones, for the inline submit of the generate request). */
    leaseIds: async (owner: string, leaseMs: number, taskIds: readonly string[]): Promise<LeasedTask[]> =>
      withGenerations(requestsOf, await claimIds(owner, leaseMs, taskIds)),

    /**
     * Writes a leased task. Only the lease holder may write, and never to a finished task:
     * this is what keeps final states final when a lease was lost to another worker. `withFinal`
     * commits with a write that ends the task (and runs only then).
     */
    updateLeased: (
      taskId: string,
      owner: string,
      patch: TaskPatch,
      withFinal?: OnTaskFinished,
    ): Promise<boolean> => updateLeasedRow(taskId, owner, patch, withFinal),
  };
}

/** Claimed tasks with what the engine needs of their generations (a task without one is dropped). */
async function withGenerations(requestsOf: RequestsOf | undefined, tasks: TaskRow[]): Promise<LeasedTask[]> {
  if (tasks.length === 0) return [];
  if (!requestsOf) throw new Error('the tasks repository was built without its generations reader');
  const generations = await requestsOf([...new Set(tasks.map((t) => t.generation_id))]);
  const byId = new Map(generations.map((g) => [g.id, g]));
  return tasks.flatMap((task) => {
    const generation = byId.get(task.generation_id);
    return generation ? [{ task, generation }] : [];
  });
}

export type TasksRepository = ReturnType<typeof createTasksRepository>;
