import type { FastifyInstance } from 'fastify';
import { accountOf } from '../http/authentication.js';
import { ApiError } from '../http/errors.js';
import { notFoundRecord, TASK_NOT_FOUND, toTaskRecord } from './task-record.js';
import type { TasksRepository } from './tasks-repository.js';

export const MAX_BATCH_IDS = 20;

/** Splits `ids=a,b,c`: trimmed, empty entries dropped, 1–20 left (DESIGN.md §2). */
export function parseBatchIds(raw: unknown): string[] {
  if (raw === undefined) throw new ApiError('invalid_request', 'ids query parameter is required');
  if (typeof raw !== 'string')
    throw new ApiError('invalid_request', 'ids must be given once, as a comma-separated list');
  const ids = raw
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  if (ids.length === 0) throw new ApiError('invalid_request', 'ids must name at least one task id');
  if (ids.length > MAX_BATCH_IDS)
    throw new ApiError('invalid_request', `at most ${MAX_BATCH_IDS} ids per request`);
  return ids;
}

/** The polling endpoints: they read the store only, never the upstream. */
export async function taskRoutes(app: FastifyInstance, { tasks }: { tasks: TasksRepository }) {
  app.get<{ Params: { task_id: string } }>('/tasks/:task_id', async (request) => {
    const row = await tasks.findForAccount(accountOf(request).id, request.params.task_id);
    if (!row) throw new ApiError('not_found', TASK_NOT_FOUND);
    return toTaskRecord(row);
  });

  app.get<{ Querystring: Record<string, unknown> }>('/tasks', async (request) => {
    const ids = parseBatchIds(request.query.ids);
    const rows = await tasks.findManyForAccount(accountOf(request).id, ids);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return {
      tasks: ids.map((id) => {
        const row = byId.get(id);
        return row ? toTaskRecord(row) : notFoundRecord(id);
      }),
    };
  });
}
