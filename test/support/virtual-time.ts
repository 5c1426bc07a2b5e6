/**
 * Virtual time for engine tests that measure time itself (how long a burst takes, how fast a pool
 * recovers) without asserting on the wall clock. Every timer (`setTimeout`, `setInterval`) and
 * every "now" (`Date`, hence the engine's system clock and the loopback upstreams' latencies and
 * rate windows) is mocked; a pump moves time forward one step at a time, and only while nothing
 * real is under way: no database statement in flight (PostgreSQL: counted on the pool; SQLite:
 * synchronous), no upstream call between the engine and the upstream (a call the upstream holds
 * for its latency waits on virtual time, so it does not count), no file I/O. So every statement,
 * request and write takes no virtual time however loaded the machine is, and what the test
 * measures in virtual time is what the engine's own decisions (its sleeps, its pacing, the pools'
 * ramps and holds) cost — the same on every run and on both stores.
 */
import { mock } from 'node:test';
import type { PostgresPool } from 'kysely';
import { Kysely, PostgresDialect } from 'kysely';
import sharp from 'sharp';
import type { ImageProvider } from '../../src/capabilities/providers/provider.js';
import type { Db } from '../../src/infra/store/database.js';
import { openDatabase } from '../../src/infra/store/database.js';
import { migrateToLatest } from '../../src/infra/store/migrate.js';
import { createPostgresPool, isPostgresUrl, nulSafePool } from '../../src/infra/store/postgres-pool.js';
import type { Database } from '../../src/infra/store/schema.js';

/** Real timers, kept before any test mocks them: the pump waits on real I/O with them. */
const realSetTimeout = globalThis.setTimeout;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Work under way that virtual time must wait for; each source says how much of it there is. */
export type BusySource = () => number;

/** Counts a promise-returning method's calls until each settles. */
function counted<A extends unknown[], R>(count: { n: number }, call: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    const result = call(...args);
    if (!(result instanceof Promise)) return result;
    count.n++;
    return result.finally(() => {
      count.n--;
    }) as R;
  };
}

/**
 * The test's database, opened as the app opens it, with its statements in flight counted (the
 * pump's busy source). SQLite answers synchronously: nothing to count there.
 */
export async function openCountedDatabase(databaseUrl: string): Promise<{ db: Db; busy: BusySource }> {
  if (!isPostgresUrl(databaseUrl)) return { db: await openDatabase(databaseUrl), busy: () => 0 };
  const count = { n: 0 };
  const pgPool = createPostgresPool(databaseUrl);
  // No idle timeout: a client released before virtual time starts (the migration's) would keep a
  // real timer that the mocked clearTimeout cannot clear, and end that client 10 s later while a
  // statement runs on it ("Connection terminated"). The pool lives as long as the test.
  pgPool.options.idleTimeoutMillis = 0;
  const pool = nulSafePool(pgPool);
  const countedPool: PostgresPool = {
    connect: counted(count, async () => {
      const client = await pool.connect();
      return { query: counted(count, client.query.bind(client)), release: client.release.bind(client) };
    }) as PostgresPool['connect'],
    end: () => pool.end(),
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: countedPool }) });
  await migrateToLatest(db as unknown as Kysely<unknown>);
  return { db, busy: () => count.n };
}

/**
 * `provider` with its calls in flight counted, less those its upstream holds for their latency
 * (`held`, on virtual time): what is left is on the wire or being read, real work to wait for.
 */
export function countedProvider(
  provider: ImageProvider,
  held: () => number,
): { provider: ImageProvider; busy: BusySource } {
  const count = { n: 0 };
  return {
    provider: {
      ...provider,
      submit: counted(count, provider.submit.bind(provider)),
      poll: counted(count, provider.poll.bind(provider)),
    },
    busy: () => Math.max(0, count.n - held()),
  };
}

/** True while a file read or write is pending (a result being stored, a catalog read). */
function fileIoPending(): boolean {
  return process.getActiveResourcesInfo().some((name) => name.startsWith('FSReq'));
}

/**
 * Image work (sharp's decodes, encodes and reads of a result, a reference, a rendition) runs on
 * libuv's thread pool, which `getActiveResourcesInfo` does not list: counted here by wrapping the
 * methods that start it, so virtual time does not run on (and leases expire) while a slow machine
 * decodes an image.
 */
const imageWork = { n: 0 };
for (const method of ['toBuffer', 'toFile', 'metadata', 'stats'] as const) {
  const proto = sharp.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const original = proto[method];
  if (typeof original !== 'function') continue;
  proto[method] = function (this: unknown, ...args: unknown[]) {
    const result = original.apply(this, args);
    if (!(result instanceof Promise)) return result;
    imageWork.n++;
    return result.finally(() => {
      imageWork.n--;
    });
  };
}

export interface VirtualTime {
  /** Virtual milliseconds since the pump started. */
  elapsedMs(): number;
  /** Holds virtual time still while `work` runs (e.g. a burst submitted "at one instant"). */
  still<T>(work: () => Promise<T>): Promise<T>;
  /** Stops the pump and gives the real timers back. */
  stop(): Promise<void>;
}

/**
 * Mocks the timers and `Date`, and moves virtual time forward by `stepMs` whenever every busy
 * source is at zero (and no file I/O is pending) for a few turns of the event loop in a row.
 */
export function startVirtualTime(busy: BusySource[], stepMs = 10): VirtualTime {
  const startedAt = Date.now();
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: startedAt });
  let running = true;
  let held = 0;
  const idle = () =>
    held === 0 && imageWork.n === 0 && !fileIoPending() && busy.every((source) => source() === 0);
  const pump = (async () => {
    while (running) {
      // Three quiet turns in a row: work started by a callback of the last turn shows by then.
      let quiet = 0;
      while (quiet < 3 && running) {
        await nextTurn();
        if (idle()) quiet++;
        else {
          quiet = 0;
          await new Promise((resolve) => realSetTimeout(resolve, 1));
        }
      }
      if (running) mock.timers.tick(stepMs);
    }
  })();
  return {
    elapsedMs: () => Date.now() - startedAt,
    async still(work) {
      held++;
      try {
        return await work();
      } finally {
        held--;
      }
    },
    async stop() {
      running = false;
      await pump;
      mock.timers.reset();
    },
  };
}
