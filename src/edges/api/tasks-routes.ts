import type { FastifyInstance } from 'fastify';
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
import type { TaskRecordRow } from '../../capabilities/tasks/index.js';
import { notFoundRecord, toTaskRecord } from '../../capabilities/tasks/index.js';
import { accountOf } from '../http/authentication.js';
import { sendJsonText } from '../http/response-serializer.js';
import { AUTH_ERRORS, errorResponses, jsonResponse, WRITE_AUTH_ERRORS } from '../http/route-responses.js';
import type { ZodApp } from '../http/zod-app.js';
import { createTaskRecordJson } from './task-record-json.js';
import { openTaskStream } from './task-stream.js';
import { OpenWaits, type TaskRouteContext, type TaskRouteDeps, waitForChange } from './task-waits.js';

const TAG = 'Tasks';

/** The event stream, documented as text: each `event: task` carries a TaskRecord as its JSON data. */
const eventStreamSchema = z
  .string()
  .describe(
    'Server-Sent Events: `event: task` whose `data` is a TaskRecord (JSON), one per change; `event: end` once every task is final; `event: shutdown` when the node closes (reconnect)',
  );

/** Records for ids, in input order, with not-found records in place. */
function recordsOf(ids: readonly string[], rows: readonly TaskRecordRow[]): TaskRecord[] {
  const byId = new Map(rows.map((row) => [row.id, toTaskRecord(row)]));
  return ids.map((id) => byId.get(id) ?? notFoundRecord(id));
}

/** Polls answer with the records' JSON text (final ones are written once and kept, for every prefix). */
const recordJson = createTaskRecordJson();

/** The polling endpoints, long-poll, the event stream and cancel: they read the store, never the upstream. */
export async function taskRoutes(parent: FastifyInstance, deps: TaskRouteDeps) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const waits = new OpenWaits();
  app.addHook('preClose', async () => waits.closeAll());
  const context: TaskRouteContext = { ...deps, waits };
  streamTasksRoute(app, context);
  getTaskRoute(app, context);
  getTasksRoute(app, context);
  cancelTaskRoute(app, context);
}

/** Each registration builds its own schemas, as each prefix documents its own routes. */
const streamSchema = () => ({
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
});

/** GET /tasks/events: the tasks' changes as Server-Sent Events. */
function streamTasksRoute(app: ZodApp, context: TaskRouteContext) {
  app.get('/tasks/events', { schema: streamSchema() }, async (request, reply) =>
    openTaskStream(context, request, reply, request.query),
  );
}

const getTaskSchema = () => ({
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
});

/** GET /tasks/:task_id: one record, at once or after a long-poll. */
function getTaskRoute(app: ZodApp, context: TaskRouteContext) {
  const { tasks } = context;
  app.get('/tasks/:task_id', { schema: getTaskSchema() }, (request, reply) => {
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
      await waitForChange(context, request, accountId, [toTaskRecord(row)], wait);
      const [after] = await tasks.findMany(accountId, [taskId]);
      return sendJsonText(reply, recordJson.one(after ?? row));
    })();
  });
}

const getTasksSchema = () => ({
  tags: [TAG],
  operationId: 'getTasks',
  summary: 'Get up to 20 tasks',
  description: 'Unknown ids, and ids of other accounts, are answered in place as failed "Task not found".',
  querystring: taskBatchQuerySchema,
  response: {
    200: jsonResponse('Records in input order', taskBatchSchema),
    ...errorResponses(['invalid_request', ...AUTH_ERRORS, 'too_many_requests']),
  },
});

/** GET /tasks: up to 20 records in input order, at once or after a long-poll. */
function getTasksRoute(app: ZodApp, context: TaskRouteContext) {
  const { tasks } = context;
  app.get('/tasks', { schema: getTasksSchema() }, (request, reply) => {
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
        await waitForChange(context, request, accountId, recordsOf(ids, rows), wait);
        rows = await tasks.findMany(accountId, ids);
      }
      return sendJsonText(reply, recordJson.batch(ids, rows));
    })();
  });
}

const cancelSchema = () => ({
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
});

/** POST /tasks/:task_id/cancel. */
function cancelTaskRoute(app: ZodApp, { tasks }: TaskRouteContext) {
  app.post('/tasks/:task_id/cancel', { schema: cancelSchema() }, (request) =>
    tasks.cancel(accountOf(request).id, request.params.task_id),
  );
}
