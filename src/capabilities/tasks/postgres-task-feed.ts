import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../../infra/store/database.js';
import type { PostgresListener } from '../../infra/store/postgres-listener.js';
import type { TaskChange, TaskChangeFeed } from './task-events.js';
import { createLocalFanOut } from './task-events.js';
import type { TaskRecord } from './task-record.js';

const CHANNEL = 'atelier_task_changes';
/** Announcements that tasks became due, for the workers of every node (the payload is the origin). */
const WORK_CHANNEL = 'atelier_task_work';
// PostgreSQL refuses a NOTIFY payload of 8000 bytes or more.
const MAX_PAYLOAD_BYTES = 7900;

/** What travels in a notification: the origin (to skip our own), the account, and the record or its id. */
interface Announcement {
  o: string;
  a: string;
  r?: TaskRecord;
  t?: string;
  /** The task's partial frame count, when the change stored a frame. */
  p?: number;
}

/** The channels the feed needs its process's listener to LISTEN on. */
export const TASK_FEED_CHANNELS = [CHANNEL, WORK_CHANNEL] as const;

export interface PostgresTaskFeedDeps {
  /** The pool the app writes through: notifications are sent with `pg_notify` on it. */
  db: Db;
  /** The process's LISTEN connection, on `TASK_FEED_CHANNELS` among others. */
  listener: PostgresListener;
  logger: Logger;
  /** Reads a task's record, for an announcement too large to carry it. */
  load(accountId: string, taskId: string): Promise<TaskRecord | undefined>;
}

/**
 * Task changes across nodes over PostgreSQL `LISTEN/NOTIFY`: the process's listener hears other
 * nodes' announcements, and this process announces its own changes with `pg_notify`. When the
 * listener's connection drops and comes back, subscribers are told to re-read (notifications sent
 * while it was away are lost) and the workers to look for due work.
 */
export function createPostgresTaskFeed(deps: PostgresTaskFeedDeps): TaskChangeFeed {
  const { logger, listener } = deps;
  const origin = randomUUID();
  const fanOut = createLocalFanOut();

  function receive(payload: string): void {
    let announcement: Announcement;
    try {
      announcement = JSON.parse(payload) as Announcement;
    } catch {
      logger.warn({ payload: payload.slice(0, 200) }, 'unreadable task change notification');
      return;
    }
    if (announcement.o === origin) return;
    const accountId = announcement.a;
    const frame = announcement.p === undefined ? {} : { partialFrames: announcement.p };
    if (announcement.r) fanOut.emit({ accountId, record: announcement.r, ...frame });
    else if (announcement.t)
      deps.load(accountId, announcement.t).then(
        (record) => record && fanOut.emit({ accountId, record, ...frame }),
        (error: unknown) => logger.warn({ err: error }, 'could not read a changed task'),
      );
  }

  listener.on(CHANNEL, receive);
  listener.on(WORK_CHANNEL, (payload) => {
    if (payload !== origin) fanOut.work();
  });
  listener.onReconnect(() => {
    fanOut.resync();
    fanOut.work();
  });

  const notify = (channel: string, payload: string) =>
    sql`select pg_notify(${channel}, ${payload})`
      .execute(deps.db)
      .catch((error: unknown) => logger.warn({ err: error, channel }, 'could not send a notification'));

  return {
    publish(change: TaskChange): void {
      fanOut.emit(change);
      const p = change.partialFrames;
      let payload = JSON.stringify({
        o: origin,
        a: change.accountId,
        r: change.record,
        p,
      } satisfies Announcement);
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES)
        payload = JSON.stringify({ o: origin, a: change.accountId, t: change.record.task_id, p });
      void notify(CHANNEL, payload);
    },
    subscribe: fanOut.subscribe,
    announceWork(): void {
      fanOut.work();
      void notify(WORK_CHANNEL, origin);
    },
    onWork: fanOut.onWork,
    // The listener is the process's (closed with the core).
    async close() {},
  };
}
