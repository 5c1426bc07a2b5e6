import pg from 'pg';
import type { Logger } from 'pino';

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/** One connection that LISTENs on a fixed set of channels for the whole process. */
export interface PostgresListener {
  /** Calls `handler` with the payload of every notification on `channel` (one of the listener's). */
  on(channel: string, handler: (payload: string) => void): void;
  /**
   * Calls `handler` when the connection came back after a loss: notifications sent while it was
   * away are lost, so what was learnt from them must be re-read.
   */
  onReconnect(handler: () => void): void;
  /** Whether notifications are heard right now (false between a loss and the reconnect). */
  isListening(): boolean;
  close(): Promise<void>;
}

/**
 * PostgreSQL `LISTEN` for the process: a dedicated connection (outside the pool, which would hand
 * it to other queries) that listens on `channels`. When it drops (a PostgreSQL restart, a network
 * cut) it reconnects with backoff, listens again and tells `onReconnect` handlers.
 */
export async function createPostgresListener({
  connectionString,
  channels,
  logger,
}: {
  connectionString: string;
  channels: readonly string[];
  logger: Logger;
}): Promise<PostgresListener> {
  for (const channel of channels) {
    // Channels are written into LISTEN as identifiers: only our own constant names are allowed.
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name: ${channel}`);
  }
  const handlers = new Map<string, Array<(payload: string) => void>>(channels.map((c) => [c, []]));
  const reconnectHandlers: Array<() => void> = [];
  let client: pg.Client | undefined;
  let closed = false;
  let everConnected = false;
  let retryMs = RECONNECT_MIN_MS;
  let retryTimer: NodeJS.Timeout | undefined;

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
      connectionString,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    let dropped = false;
    const drop = (error?: unknown) => {
      if (dropped) return;
      dropped = true;
      if (client === candidate) client = undefined;
      if (error && !closed) logger.warn({ err: error }, 'notification connection lost; reconnecting');
      candidate.end().catch(() => undefined);
      scheduleReconnect();
    };
    candidate.on('error', drop);
    candidate.on('end', () => drop());
    candidate.on('notification', (message) => {
      for (const handler of handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    try {
      await candidate.connect();
      await candidate.query(channels.map((channel) => `LISTEN ${channel}`).join('; '));
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
      logger.info('notification connection back');
      for (const handler of reconnectHandlers) handler();
    }
    everConnected = true;
  }

  await connect();

  return {
    on(channel, handler) {
      const list = handlers.get(channel);
      if (!list) throw new Error(`not listening on ${channel}`);
      list.push(handler);
    },
    onReconnect(handler) {
      reconnectHandlers.push(handler);
    },
    isListening: () => client !== undefined,
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
