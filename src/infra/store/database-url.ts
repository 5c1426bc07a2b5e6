// What a database URL names, without loading a driver: `pg` is loaded only for a PostgreSQL URL.

/** True for a `postgres://` or `postgresql://` connection URL (anything else is a SQLite path). */
export function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//i.test(databaseUrl);
}
