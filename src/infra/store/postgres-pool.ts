import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';

export { isPostgresUrl } from './database-url.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

function parseInt8(value: string): number {
  const n = Number(value);
  // Timestamps (ms) and counts fit in 2^53; a value that does not is a bug worth failing loudly on.
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} does not fit a JS number`);
  return n;
}

/**
 * Type parsers of this pool only (the `pg` module's global parsers stay untouched): bigint columns
 * and `count(*)` (int8), and numeric aggregates such as `sum(bigint)`, come back as JS numbers,
 * the same as on SQLite.
 */
const numberTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary' && oid === INT8_OID) return parseInt8;
    if (format !== 'binary' && oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format ?? 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** A node-postgres pool on `databaseUrl` whose bigint and numeric results are JS numbers. */
export function createPostgresPool(databaseUrl: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    types: numberTypes,
    // Fail a query after 30 s without a connection rather than hang forever on an unreachable server.
    connectionTimeoutMillis: 30_000,
  });
  // An idle client whose server went away (a restart, a failover) is dropped from the pool and the
  // next query opens a fresh connection; without a listener that error would crash the process.
  pool.on('error', () => {});
  return pool;
}

/** PostgreSQL text cannot hold U+0000; U+FFFD is what a decoder would show in its place. */
function scrubNul(value: unknown): unknown {
  return typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
}

/** Most distinct statements kept prepared (per connection, on the server); the app issues a few hundred. */
const MAX_PREPARED_STATEMENTS = 1000;
const preparable = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * Names for the app's statements, so node-postgres prepares each once per connection and later
 * executions skip PostgreSQL's parse and plan (a poll's two queries are read-by-key: planning them
 * costs about as much as running them). Plans stay right for any parameter: the queries that need a
 * partial index state its condition literally. Past the cap, new texts run unnamed.
 */
function statementNamer() {
  const names = new Map<string, string>();
  return (text: string): string | undefined => {
    const known = names.get(text);
    if (known !== undefined || names.size >= MAX_PREPARED_STATEMENTS || !preparable.test(text)) return known;
    const name = `atl_${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`;
    names.set(text, name);
    return name;
  };
}

/**
 * The pool as Kysely's PostgresDialect sees it, with U+0000 replaced in every string parameter.
 * PostgreSQL refuses text holding U+0000 ("invalid byte sequence"), so a request carrying one — a
 * task id in a path, a prompt — would be a 500 on PostgreSQL where SQLite answers normally. No stored
 * value contains U+0000, so a lookup with one still finds nothing, as it should.
 */
export function nulSafePool(pool: pg.Pool): PostgresPool {
  const nameOf = statementNamer();
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      // The pool listens for errors only on idle clients. A checked-out client whose server goes
      // away between two statements (a restart mid-transaction) would emit an unheard 'error' and
      // crash the process: hear it here, and hand the broken client back to be destroyed.
      let lost: Error | undefined;
      const onError = (error: Error) => {
        lost = error;
      };
      client.on('error', onError);
      return {
        query: ((query: unknown, parameters?: readonly unknown[]) =>
          typeof query === 'string'
            ? client.query({ name: nameOf(query), text: query, values: parameters?.map(scrubNul) })
            : client.query(query as pg.Submittable)) as unknown as PostgresPoolClient['query'],
        release: () => {
          client.removeListener('error', onError);
          client.release(lost);
        },
      };
    },
    end: () => pool.end(),
  };
}
