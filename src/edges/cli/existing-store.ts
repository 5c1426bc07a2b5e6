import { existsSync } from 'node:fs';
import type { Config } from '../../infra/config/config.js';
import { isPostgresUrl } from '../../infra/store/database.js';

/** A command that reads found nothing to read: exit 1, with the path it looked at. */
export class NoDatabase extends Error {}

/**
 * Commands that read (list, rotate-key, set-tier, …) must not start an empty install where the
 * operator mistyped ATELIER_DATA_DIR: opening the store would create the directory, a new
 * database and a new master key, and `accounts list` would then print nothing and exit 0. So a
 * SQLite file that does not exist is refused before anything is opened, naming the path and the
 * variable it came from. PostgreSQL needs no check: its database must already exist (connecting to
 * one that does not fails), and an existing empty one simply has no accounts.
 */
export function requireExistingDatabase(config: Config, env: NodeJS.ProcessEnv): void {
  const url = config.databaseUrl;
  if (isPostgresUrl(url) || url === ':memory:' || existsSync(url)) return;
  const source = env.ATELIER_DATABASE_URL?.trim()
    ? `ATELIER_DATABASE_URL=${env.ATELIER_DATABASE_URL.trim()}`
    : env.ATELIER_DATA_DIR?.trim()
      ? `ATELIER_DATA_DIR=${env.ATELIER_DATA_DIR.trim()}`
      : 'the default data dir ./data (ATELIER_DATA_DIR is not set)';
  throw new NoDatabase(
    `no database at ${url} (from ${source}). Check ATELIER_DATA_DIR / ATELIER_DATABASE_URL; ` +
      '"accounts create" or "serve" starts a new install there.',
  );
}
