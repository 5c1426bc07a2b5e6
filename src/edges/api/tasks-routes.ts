import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type TaskRecord,
  taskBatchQuerySchema,
  taskBatchSchema,
  taskIdParamsSchema,
  taskRecordSchema,
  taskStreamQuerySchema,
  taskWaitQuerySchema,
} from '../../base/contract/tasks.js';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { TaskChangeFeed } from '../../capabilities/tasks/task-events.js';
import { notFoundRecord, toTaskRecord } from '../../capabilities/tasks/task-record.js';
import { watchTasks } from '../../capabilities/tasks/task-watch.js';
import type { TaskRecordRow } from '../../capabilities/tasks/tasks-repository.js';
import type { TasksService } from '../../capabilities/tasks/tasks-service.js';
import { accountOf } from '../http/authentication.js';
import type { ConnectionCaps } from '../http/connection-caps.js';
import { sendJsonText } from '../http/response-serializer.js';
import { AUTH_ERRORS, errorResponses, jsonResponse, WRITE_AUTH_ERRORS } from '../http/route-responses.js';
import { createTaskRecordJson } from './task-record-json.js';

const SSE_HEARTBEAT_MS = 15_000;
const TAG = 'Tasks';

/** The event stream, documented as text: each `event: task` carries a TaskRecord as its JSON data. */
const eventStreamSchema = z
  .string()
  .describe(
    'Server-Sent Events: `event: task` whose `data` is a TaskRecord (JSON), one per change; `event: end` once every task is final; `event: shutdown` when the node closes (reconnect)',
  );

const isFinal = (record: TaskRecord) => isFinalStatus(record.status);
const statusRank = { queued: 0, in_progress: 1, completed: 2, failed: 2 } as const;
/**
 * True when `next` is a later state of the task than `previous`. States only move forward (a
 * status never goes back, progress never decreases, final is final), so this is also "what the
 * caller sees has changed", robust to notifications that arrive late or out of order.
 */
const isNewer = (previous: TaskRecord | undefined, next: TaskRecord) =>
  previous === undefined ||
  (!isFinal(previous) &&
    (statusRank[next.status] > statusRank[previous.status] ||
      (next.status === previous.status && next.progress > previous.progress)));

/** Records for ids, in input order, with not-found records in place. */
function recordsOf(ids: readonly string[], rows: readonly TaskRecordRow[]): TaskRecord[] {
  const byId = new Map(rows.map((row) => [row.id, toTaskRecord(row)]));
  return ids.map((id) => byId.get(id) ?? notFoundRecord(id));
}

/** Polls answer with the records' JSON text (final ones are written once and kept, for every prefix). */
const recordJson = createTaskRecordJson();

/** The polling endpoints, long-poll, the event stream and cancel: they read the store, never the upstream. */
export async function taskRoutes(
  parent: FastifyInstance,
  {
    tasks,
    events,
    streams,
    caps,
  }: {
    tasks: TasksService;
    events: TaskChangeFeed;
    /** Counts open event streams (metrics). */
    streams?: { inc(): void; dec(): void };
    /** Open streams and long-polls per account and client address (shared by every prefix). */
    caps?: ConnectionCaps;
  },
) {
  // Open event streams and long-polls, ended first when the server closes: a stream gets a final
  // `shutdown` event (an EventSource reconnects, through the balancer, to another node) and a
  // long-poll answers with the records as they are, so closing never waits on them.
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const openWaits = new Set<() => void>();
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    for (const end of [...openWaits]) end();
  });

  /**
   * Long-poll: resolves when the visible record of one of `ids` moves on from `initial` (status,
   * progress or result: a write that changes none of them is not a change), when `seconds` pass,
   * or when the caller goes away. It hears of changes from the feed, never by polling the store.
   */
  function waitForChange(request: FastifyRequest, accountId: string, initial: TaskRecord[], seconds: number) {
    const before = new Map(initial.filter((r) => !isFinal(r)).map((r) => [r.task_id, r]));
    if (before.size === 0 || seconds === 0 || closing) return Promise.resolve();
    // Throws (429) past the account's or the address's cap, before anything is held.
    const release = caps?.open(accountId, request.ip);
    const changed = (record: TaskRecord) =>
      before.has(record.task_id) && isNewer(before.get(record.task_id), record);
    return new Promise<void>((resolve) => {
      const watch = watchTasks({ feed: events, tasks }, accountId, [...before.keys()], {
        onRecord: changed,
        timeoutMs: seconds * 1000,
        onEnd: () => {
          release?.();
          request.raw.off('close', watch.stop);
          openWaits.delete(watch.stop);
          resolve();
        },
      });
      openWaits.add(watch.stop);
      request.raw.on('close', watch.stop);
    });
  }

  const streamSchema = {
    tags: [TAG],
    operationId: 'streamTasks',
    summary: 'Stream task changes (Server-Sent Events)',
    description:
      'Sends `event: task` with the current record of each id, then one per change (in order), and `event: end` once every task is final.',
    querystring: taskStreamQuerySchema,
    response: {
      200: {
        description: 'An event stream of task records',
        content: { 'text/event-stream': { schema: eventStreamSchema } },
      },
      ...errorResponses(['invalid_request', ...AUTH_ERRORS, 'too_many_requests']),
    },
  };
  app.get('/tasks/events', { schema: streamSchema }, async (request, reply) => {
    const accountId = accountOf(request).id;
    const ids = request.query.ids;
    const lastSent = new Map<string, TaskRecord>();
    // Before the stream starts, so a refusal is an ordinary 429 answer.
    const release = caps?.open(accountId, request.ip);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // No explicit Connection header: Node keeps the connection alive unless the client asked for
      // `Connection: close`, and then closes it after the end event.
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    raw.write('retry: 3000\n\n');
    let closed = false;
    streams?.inc();

    const send = (record: TaskRecord) => {
      // Notifications and store re-reads can arrive out of order: only ever move a task forward.
      if (closed || !isNewer(lastSent.get(record.task_id), record)) return false;
      lastSent.set(record.task_id, record);
      raw.write(`event: task\ndata: ${JSON.stringify(record)}\n\n`);
      const allFinal = ids.every((id) => {
        const sent = lastSent.get(id);
        return sent !== undefined && isFinal(sent);
      });
      if (allFinal) raw.write('event: end\ndata: {}\n\n');
      return allFinal;
    };
    const close = () => {
      if (closed) return;
      closed = true;
      release?.();
      streams?.dec();
      watch.stop();
      clearInterval(heartbeat);
      openWaits.delete(shutDown);
      raw.end();
    };
    const shutDown = () => {
      if (closed) return;
      raw.write('event: shutdown\ndata: {"reconnect":true}\n\n');
      close();
    };
    openWaits.add(shutDown);
    // The current record of each id, then one per change; ends once every task is final.
    const watch = watchTasks({ feed: events, tasks }, accountId, [...new Set(ids)], {
      onRecord: send,
      onEnd: close,
      ...(request.query.previews
        ? {
            onPartialFrames: (taskId: string, frames: number) => {
              if (!closed)
                raw.write(`event: preview\ndata: ${JSON.stringify({ task_id: taskId, frames })}\n\n`);
            },
          }
        : {}),
    });
    const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), SSE_HEARTBEAT_MS);
    request.raw.on('close', close);
    if (closing) shutDown();
  });

  const getTaskSchema = {
    tags: [TAG],
    operationId: 'getTask',
    summary: 'Get one task',
    description:
      'Reads the store (never the upstream). Poll every 2–5 s, or use `wait` or the event stream. Also served at /v1/tasks/{task_id}.',
    params: taskIdParamsSchema,
    querystring: taskWaitQuerySchema,
    response: {
      200: jsonResponse('The task record', taskRecordSchema),
      ...errorResponses(['invalid_request', ...AUTH_ERRORS, 'not_found', 'too_many_requests']),
    },
  };
  app.get('/tasks/:task_id', { schema: getTaskSchema }, (request, reply) => {
    const accountId = accountOf(request).id;
    const { wait } = request.query;
    const taskId = request.params.task_id;
    // A finished task kept in memory is answered at once, without a promise (most polls of a
    // finished task: clients keep asking after the end); the rest read the store.
    const kept = wait === 0 ? tasks.findInMemory(accountId, taskId) : undefined;
    if (kept !== undefined) {
      sendJsonText(reply, recordJson.one(kept));
      return;
    }
    return (async () => {
      const row = await tasks.find(accountId, taskId);
      if (wait === 0) return sendJsonText(reply, recordJson.one(row));
      await waitForChange(request, accountId, [toTaskRecord(row)], wait);
      const [after] = await tasks.findMany(accountId, [taskId]);
      return sendJsonText(reply, recordJson.one(after ?? row));
    })();
  });

  const getTasksSchema = {
    tags: [TAG],
    operationId: 'getTasks',
    summary: 'Get up to 20 tasks',
    description: 'Unknown ids, and ids of other accounts, are answered in place as failed "Task not found".',
    querystring: taskBatchQuerySchema,
    response: {
      200: jsonResponse('Records in input order', taskBatchSchema),
      ...errorResponses(['invalid_request', ...AUTH_ERRORS, 'too_many_requests']),
    },
  };
  app.get('/tasks', { schema: getTasksSchema }, (request, reply) => {
    const accountId = accountOf(request).id;
    const { ids, wait } = request.query;
    // As for one task: a batch of finished tasks all kept in memory is answered at once (and the
    // answer itself is kept: it never changes).
    const kept =
      wait === 0
        ? recordJson.finalBatch(accountId, ids, () => tasks.recordsInMemory(accountId, ids))
        : undefined;
    if (kept !== undefined) {
      sendJsonText(reply, kept);
      return;
    }
    return (async () => {
      let rows = await tasks.findMany(accountId, ids);
      if (wait > 0) {
        await waitForChange(request, accountId, recordsOf(ids, rows), wait);
        rows = await tasks.findMany(accountId, ids);
      }
      return sendJsonText(reply, recordJson.batch(ids, rows));
    })();
  });

  const cancelSchema = {
    tags: [TAG],
    operationId: 'cancelTask',
    summary: 'Cancel a task',
    description:
      'An unfinished task ends failed with error "Canceled" (repeating the call answers the same); a finished one is 409.',
    params: taskIdParamsSchema,
    response: {
      200: jsonResponse('The canceled task', taskRecordSchema),
      ...errorResponses([...WRITE_AUTH_ERRORS, 'not_found', 'conflict']),
    },
  };
  app.post('/tasks/:task_id/cancel', { schema: cancelSchema }, (request) =>
    tasks.cancel(accountOf(request).id, request.params.task_id),
  );
}
