import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../store/database.js';
import type { TaskChange, TaskChangeFeed } from './task-events.js';
import { createLocalFanOut } from './task-events.js';
import type { TaskRecord } from './task-record.js';

const CHANNEL = 'atelier_task_changes';
/** Announcements that tasks became due, for the workers of every node (the payload is the origin). */
const WORK_CHANNEL = 'atelier_task_work';
// PostgreSQL refuses a NOTIFY payload of 8000 bytes or more.
const MAX_PAYLOAD_BYTES = 7900;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/** What travels in a notification: the origin (to skip our own), the account, and the record or its id. */
interface Announcement {
  o: string;
  a: string;
  r?: TaskRecord;
  t?: string;
}

export interface PostgresTaskFeedDeps {
  /** The pool the app writes through: notifications are sent with `pg_notify` on it. */
  db: Db;
  connectionString: string;
  logger: Logger;
  /** Reads a task's record, for an announcement too large to carry it. */
  load(accountId: string, taskId: string): Promise<TaskRecord | undefined>;
}

/**
 * Task changes across nodes over PostgreSQL `LISTEN/NOTIFY`: each process keeps one dedicated
 * connection that LISTENs (outside the pool, which would hand it to other queries), and announces
 * its own changes with `pg_notify`. When that connection drops (a PostgreSQL restart, a network
 * cut) it reconnects with backoff and tells subscribers to re-read, as notifications sent while it
 * was away are lost.
 */
export async function createPostgresTaskFeed(deps: PostgresTaskFeedDeps): Promise<TaskChangeFeed> {
  const { logger } = deps;
  const origin = randomUUID();
  const fanOut = createLocalFanOut();
  let client: pg.Client | undefined;
  let closed = false;
  let everConnected = false;
  let retryMs = RECONNECT_MIN_MS;
  let retryTimer: NodeJS.Timeout | undefined;

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
    if (announcement.r) fanOut.emit({ accountId, record: announcement.r });
    else if (announcement.t)
      deps.load(accountId, announcement.t).then(
        (record) => record && fanOut.emit({ accountId, record }),
        (error: unknown) => logger.warn({ err: error }, 'could not read a changed task'),
      );
  }

  function scheduleReconnect(): void {
    if (closed || retryTimer) return;
    const delay = retryMs;
    retryMs = Math.min(RECONNECT_MAX_MS, retryMs * 2);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, delay);
    retryTimer.unref();
  }

  async function connect(): Promise<void> {
    // TCP keepalive probes after 10 s idle: a connection cut without a FIN (a host gone) is noticed.
    const candidate = new pg.Client({
      connectionString: deps.connectionString,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    let dropped = false;
    const drop = (error?: unknown) => {
      if (dropped) return;
      dropped = true;
      if (client === candidate) client = undefined;
      if (error && !closed) logger.warn({ err: error }, 'task change feed connection lost; reconnecting');
      candidate.end().catch(() => undefined);
      scheduleReconnect();
    };
    candidate.on('error', drop);
    candidate.on('end', () => drop());
    candidate.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload) receive(message.payload);
      else if (message.channel === WORK_CHANNEL && message.payload !== origin) fanOut.work();
    });
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${CHANNEL}; LISTEN ${WORK_CHANNEL}`);
    } catch (error) {
      drop(error);
      return;
    }
    if (closed) {
      await candidate.end().catch(() => undefined);
      return;
    }
    client = candidate;
    retryMs = RECONNECT_MIN_MS;
    if (everConnected) {
      logger.info('task change feed reconnected');
      fanOut.resync();
      fanOut.work();
    }
    everConnected = true;
  }

  await connect();

  const notify = (channel: string, payload: string) =>
    sql`select pg_notify(${channel}, ${payload})`
      .execute(deps.db)
      .catch((error: unknown) => logger.warn({ err: error, channel }, 'could not send a notification'));

  return {
    publish(change: TaskChange): void {
      fanOut.emit(change);
      let payload = JSON.stringify({
        o: origin,
        a: change.accountId,
        r: change.record,
      } satisfies Announcement);
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES)
        payload = JSON.stringify({ o: origin, a: change.accountId, t: change.record.task_id });
      void notify(CHANNEL, payload);
    },
    subscribe: fanOut.subscribe,
    announceWork(): void {
      fanOut.work();
      void notify(WORK_CHANNEL, origin);
    },
    onWork: fanOut.onWork,
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
