/**
 * What the task engine is built from (its dependencies and options) and what it hands each step
 * (the step context): shared by the engine, the step and the submit, which import it and not each
 * other's modules' types.
 */
import type { Logger } from 'pino';
import type { Tracing } from '../../base/observability/tracing.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import type { BlobStore } from '../../infra/blobs/blob-store.js';
import type { ProcessOwner } from '../../infra/jobs/process-owner.js';
import type { ProviderKeyPool, UpstreamKeyResolver } from '../accounts/index.js';
import type { AssetsRepository } from '../assets/index.js';
import type { UpstreamRoute } from '../catalog/index.js';
import type { ProviderRegistry } from '../providers/index.js';
import type { CapacityGate, CapacityMetrics } from './capacity/capacity-gate.js';
import type { CapacityLimits } from './capacity/capacity-pool.js';
import type { UpstreamCapacity } from './capacity/upstream-capacity.js';
import type { TaskChange, TaskChangeFeed } from './task-events.js';
import type { OnTaskFinished } from './task-finish.js';
import type { TaskMetrics } from './task-metrics.js';
import type { TaskTurns } from './task-turns.js';
import type { TaskPatch, TaskRow, TasksRepository } from './tasks-repository.js';

export interface TaskEngineOptions {
  /**
   * Most task steps in flight at once in this process (upstream calls, polls, result copies). Tasks
   * waiting for upstream capacity are parked in the store and hold none.
   */
  concurrency: number;
  /** How long a lease lasts; the holder renews it (heartbeat) for as long as it works on the task. */
  leaseMs: number;
  /** How long the idle loop sleeps before looking for due tasks again (other nodes' tasks). */
  idlePollMs: number;
  /** Consecutive retryable failures before a task fails for good. */
  maxAttempts: number;
  /** Time limit of one upstream call. */
  upstreamTimeoutMs: number;
  /** The whole-task deadline, in minutes for messages. */
  taskDeadlineMs: number;
}

export interface TaskEngineDeps {
  tasks: TasksRepository;
  assets: AssetsRepository;
  providers: ProviderRegistry;
  keys: UpstreamKeyResolver;
  /** The deployment's pools of upstream keys (absent: the environment's single key, as before). */
  keyPool?: ProviderKeyPool | undefined;
  blobs: BlobStore;
  /** The kept conversation turns (Gemini's signed answers), sent back when a task refines one. */
  turns?: TaskTurns;
  clock: Clock;
  ids: IdGenerator;
  /** This process, for lease owner ids: a restart on the same host takes back its dead leases at once. */
  processOwner?: ProcessOwner;
  logger: Logger;
  /** Downloads an upstream's result URL (through the safe fetcher). */
  downloadImage(url: string, signal: AbortSignal): Promise<Buffer>;
  /** Public URL of a blob key. */
  blobUrl(key: string): string;
  /** Called after every write that changes a task's visible record, so listeners (event stream, long-poll, webhooks) can react. */
  onTaskChanged?(change: TaskChange): void;
  /** Counts finished tasks and fallbacks, times queueing and whole runs (optional). */
  metrics?: Pick<
    TaskMetrics,
    | 'tasksFinished'
    | 'taskQueuedSeconds'
    | 'taskResultSeconds'
    | 'upstreamFallbacks'
    | 'spendMicros'
    | 'absorbedMicros'
  >;
  /** A catalog model's upstream routes in the order they are tried (provider fallbacks). */
  routesOf?(modelId: string): readonly UpstreamRoute[];
  /** Upstream capacity shared through the store: a slot before each upstream submit. */
  capacity: UpstreamCapacity;
  /** The catalog's capacity limits of an upstream route, by its id (route-id.ts). */
  limitsOf?(routeId: string): CapacityLimits;
  capacityMetrics?: CapacityMetrics;
  /** Work announcements between nodes: tasks created or made due anywhere wake this worker. */
  work?: Pick<TaskChangeFeed, 'announceWork' | 'onWork'>;
  /** Traces: the spans of traced tasks (their ids on the rows); absent or off: none. */
  tracing?: Tracing;
  options: TaskEngineOptions;
}

/** What a step needs from the engine: its guarded writes and the upstream cancel. */
export interface StepContext {
  deps: Omit<TaskEngineDeps, 'tasks' | 'ids' | 'onTaskChanged'>;
  /**
   * Writes the task if this worker still holds its lease; false otherwise. `withFinal` commits with
   * a write that ends the task, in its transaction (a result's asset).
   */
  write(task: TaskRow, patch: TaskPatch, withFinal?: OnTaskFinished): Promise<boolean>;
  /** Ends the task failed with `message` (and `also`, what the same write records besides). */
  fail(task: TaskRow, message: string, also?: TaskPatch): Promise<boolean>;
  cancelUpstream(task: TaskRow): void;
  /** Upstream capacity: slots before calls, parked tasks called back when room returns. */
  gate: CapacityGate;
}
