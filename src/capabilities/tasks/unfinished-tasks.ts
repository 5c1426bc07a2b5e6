import { sql } from 'kysely';

/**
 * "The task is unfinished", written with literal statuses: the engine's due-queue index (`tasks_due`)
 * is partial on exactly this condition, and SQLite uses a partial index only when the query states
 * its condition (bound parameters would make it scan every task ever made, each idle second).
 */
export const isUnfinished = sql<boolean>`${sql.ref('status')} in ('queued', 'in_progress')`;
