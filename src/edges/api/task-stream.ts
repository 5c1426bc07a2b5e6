import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TaskRecord } from '../../base/contract/tasks.js';
import { watchTasks } from '../../capabilities/tasks/index.js';
import { accountOf } from '../http/authentication.js';
import { isFinal, isNewer, type TaskRouteContext } from './task-waits.js';

const SSE_HEARTBEAT_MS = 15_000;

/**
 * GET /tasks/events: the current record of each id, then one per change (each task only ever moved
 * forward), `end` once every task is final, `shutdown` when the node closes.
 */
export function openTaskStream(
  context: TaskRouteContext,
  request: FastifyRequest,
  reply: FastifyReply,
  { ids, previews }: { ids: string[]; previews?: boolean | undefined },
): void {
  const { tasks, events, streams, caps, waits } = context;
  const accountId = accountOf(request).id;
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
    waits.delete(shutDown);
    raw.end();
  };
  const shutDown = () => {
    if (closed) return;
    raw.write('event: shutdown\ndata: {"reconnect":true}\n\n');
    close();
  };
  waits.add(shutDown);
  // The current record of each id, then one per change; ends once every task is final.
  const watch = watchTasks({ feed: events, tasks }, accountId, [...new Set(ids)], {
    onRecord: send,
    onEnd: close,
    ...(previews
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
  if (waits.closing) shutDown();
}
