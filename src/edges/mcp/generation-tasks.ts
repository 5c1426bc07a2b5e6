import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type {
  CreateTaskOptions,
  TaskStore,
} from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';
import {
  AtelierApiError,
  type AtelierClient,
  isFinalStatus,
  type TaskRecord,
} from '../client/atelier-client.js';
import { MIN_POLL_INTERVAL_MS, overallProgress } from './task-polling.js';
import type { Thumbnailer } from './thumbnails.js';
import { describeProgress, generationResult, summarize } from './tools/generate-image.js';

/**
 * MCP tasks (spec 2025-11-25) for `generate_image` and `refine_image`, kept nowhere but in Atelier itself: an MCP task id
 * names the generation's Atelier task ids (and when it was made), so any process holding the caller's
 * API key — any api node behind a load balancer, a restarted stdio server — answers `tasks/get`,
 * `tasks/result` and `tasks/cancel` by reading those tasks through the API. The key, not the task id,
 * decides access: ids of another account's tasks read as not found. An id is read back only if
 * this server issued it (issue 38): it ends in an HMAC of its contents under a key bound to the
 * account (the master key's, on Atelier's own /mcp; the API key's, for the stdio server, which holds
 * no other secret), so a caller cannot make up a failed task whose status message is its own text.
 */

/** Authenticates an MCP task id's contents: their tag (HMAC), under a key bound to the account. */
export type TaskIdSeal = (contents: string) => string;

/** A seal by HMAC-SHA-256 (128-bit tag) under `key`, bound to `account`. */
export function hmacTaskIdSeal(key: Buffer, account: string): TaskIdSeal {
  const bound = createHmac('sha256', key).update(`mcp-task-ids\0${account}`).digest();
  return (contents) =>
    createHmac('sha256', bound).update(contents).digest().subarray(0, 16).toString('base64url');
}

/** The stdio server's seal: its one secret is the API key, so the key is derived from it. */
export function apiKeyTaskIdSeal(apiKey: string): TaskIdSeal {
  return hmacTaskIdSeal(createHash('sha256').update(`atelier-mcp-task-ids\0${apiKey}`).digest(), 'api-key');
}

const PREFIX = 'atelier-gen.';
/** The spec's recommended polling interval for Atelier tasks is 2-5 s. */
export const TASK_POLL_INTERVAL_MS = MIN_POLL_INTERVAL_MS;
/** The batch endpoint's limit; a generation has at most 16 images. */
const MAX_IDS = 20;
/** A refusal's text kept in a task id (API messages are far shorter). */
const MAX_FAILURE_CHARS = 1500;

export interface GenerationTaskRef {
  /** Empty when the submission was refused (then `failure` says why). */
  taskIds: string[];
  /** When the generation was submitted, ms since the epoch. */
  createdAt: number;
  /**
   * The tool error of a refused submission: the call still answers a task (the SDK accepts nothing
   * else for a task-augmented call), which is `failed` and whose result is this error.
   */
  failure?: string;
}

/** The MCP task id of a generation: opaque to clients, readable (and checked) by every node. */
export function encodeGenerationTaskId(ref: GenerationTaskRef, seal: TaskIdSeal): string {
  const json = JSON.stringify({
    ids: ref.taskIds,
    at: ref.createdAt,
    ...(ref.failure !== undefined ? { err: ref.failure.slice(0, MAX_FAILURE_CHARS) } : {}),
  });
  const contents = Buffer.from(json, 'utf8').toString('base64url');
  return `${PREFIX}${contents}.${seal(contents)}`;
}

/** The contents of an id this server issued (its tag checks out), or undefined. */
function unsealed(taskId: string, seal: TaskIdSeal): string | undefined {
  const dot = taskId.lastIndexOf('.');
  if (dot <= PREFIX.length) return undefined;
  const contents = taskId.slice(PREFIX.length, dot);
  const given = Buffer.from(taskId.slice(dot + 1), 'utf8');
  const expected = Buffer.from(seal(contents), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected) ? contents : undefined;
}

/** The generation an MCP task id names, or undefined for an id this server (for this account) did not issue. */
export function decodeGenerationTaskId(taskId: string, seal: TaskIdSeal): GenerationTaskRef | undefined {
  if (!taskId.startsWith(PREFIX) || taskId.length > 4096) return undefined;
  const contents = unsealed(taskId, seal);
  if (contents === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(contents, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null) return undefined;
    const { ids, at, err } = value as { ids?: unknown; at?: unknown; err?: unknown };
    if (typeof at !== 'number' || !Number.isFinite(at)) return undefined;
    if (typeof err === 'string' && Array.isArray(ids) && ids.length === 0) {
      return { taskIds: [], createdAt: at, failure: err };
    }
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_IDS) return undefined;
    if (!ids.every((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= 200))
      return undefined;
    return { taskIds: ids, createdAt: at };
  } catch {
    return undefined;
  }
}

/**
 * The errors of a canceled task: "Canceled" from POST /api/v1/tasks/{id}/cancel, and the one an
 * operator's cancel from the console's queue gives (docs/admin-api.md).
 */
const CANCELED = ['Canceled', 'Canceled by an operator'];
const NOT_FOUND = 'Task not found';

/** The MCP task of a generation whose records were just read. */
export function taskOfRecords(taskId: string, ref: GenerationTaskRef, records: readonly TaskRecord[]): Task {
  const base = {
    taskId,
    // Results live as long as Atelier keeps the tasks; nothing here expires them.
    ttl: null,
    createdAt: new Date(ref.createdAt).toISOString(),
    lastUpdatedAt: new Date().toISOString(),
    pollInterval: TASK_POLL_INTERVAL_MS,
  };
  if (ref.failure !== undefined) {
    return { ...base, lastUpdatedAt: base.createdAt, status: 'failed', statusMessage: ref.failure };
  }
  if (!records.every((task) => isFinalStatus(task.status))) {
    return {
      ...base,
      status: 'working',
      statusMessage: `${describeProgress([...records])} (${overallProgress(records)}%)`,
    };
  }
  if (records.some((task) => task.error !== undefined && CANCELED.includes(task.error))) {
    return { ...base, status: 'cancelled', statusMessage: summarize(records) };
  }
  // Images that failed are data in the result (as without tasks); the call itself completed.
  return { ...base, status: 'completed', statusMessage: summarize(records) };
}

export interface GenerationTaskStoreOptions {
  thumbnailer: Thumbnailer;
  taskIdSeal: TaskIdSeal;
}

/**
 * The SDK's task store over Atelier's API. Only the generation tools (`generate_image`,
 * `refine_image`) create tasks, by submitting a generation (see registerGenerationTool); the SDK's tasks/get, tasks/result and tasks/cancel land
 * here. Listing is not offered (the capability does not name it): there is no list without state.
 */
export function createGenerationTaskStore(
  client: AtelierClient,
  options: GenerationTaskStoreOptions,
): TaskStore {
  async function read(taskId: string): Promise<{ ref: GenerationTaskRef; records: TaskRecord[] } | null> {
    const ref = decodeGenerationTaskId(taskId, options.taskIdSeal);
    if (!ref) return null;
    if (ref.failure !== undefined) return { ref, records: [] };
    const { tasks } = await client.getTasks(ref.taskIds);
    // Every id unknown to this key (another account's, or removed): the task does not exist for it.
    if (tasks.every((task) => task.status === 'failed' && task.error === NOT_FOUND)) return null;
    return { ref, records: tasks };
  }

  return {
    async createTask(_params: CreateTaskOptions): Promise<Task> {
      throw new Error('generation tasks are created by submitting a generation, not by the task store');
    },

    async getTask(taskId) {
      const found = await read(taskId);
      return found ? taskOfRecords(taskId, found.ref, found.records) : null;
    },

    async getTaskResult(taskId): Promise<Result> {
      const found = await read(taskId);
      if (!found) throw new Error('Task not found');
      const { ref, records } = found;
      if (ref.failure !== undefined) return { isError: true, content: [{ type: 'text', text: ref.failure }] };
      const task = taskOfRecords(taskId, ref, records);
      const finished = task.status !== 'working';
      const hint = finished
        ? (task.statusMessage ?? summarize(records))
        : `Not finished: ${task.statusMessage}; call tasks/result again after tasks/get reports it done.`;
      // The e-mail of the key's account, as the call itself answers it.
      const { email } = await client.userStatus();
      return generationResult({ task_ids: ref.taskIds, email }, records, finished, hint, options.thumbnailer);
    },

    async storeTaskResult() {
      // Results are Atelier's task records, read on demand: nothing to keep here.
    },

    async updateTaskStatus(taskId, status) {
      if (status !== 'cancelled') return;
      const ref = decodeGenerationTaskId(taskId, options.taskIdSeal);
      if (!ref) throw new Error('Task not found');
      for (const id of ref.taskIds) {
        try {
          await client.cancelTask(id);
        } catch (error) {
          // A task that finished meanwhile (409) keeps its outcome; the others are still canceled.
          if (error instanceof AtelierApiError && error.type === 'conflict') continue;
          throw error;
        }
      }
    },

    async listTasks() {
      throw new Error('listing tasks is not supported; keep the task ids generate_image returned');
    },
  };
}
