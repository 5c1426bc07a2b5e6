import { type Expression, type SqlBool, sql } from 'kysely';
import type { SearchFilters } from '../contract/website.js';

/** True when any filter is set (a plain listing keeps its cheaper path and kept totals). */
export function hasFilters(filters: SearchFilters): boolean {
  return Object.values(filters).some((value) => value !== undefined);
}

/** `text` as a LIKE pattern matching it anywhere, lower-cased, its wildcards taken literally. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The search's conditions on the `generations` table, the same on SQLite and PostgreSQL: the prompt
 * compared lower-cased with LIKE (an explicit escape character, so `%` and `_` are literal; SQLite
 * lower-cases ASCII only), model and mode exactly, creation time in [from, to).
 */
export function filterConditions(
  filters: SearchFilters,
  createdAt: 'generations.created_at' | 'assets.created_at' = 'generations.created_at',
): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [];
  const { q, model, mode, from, to } = filters;
  if (q !== undefined)
    conditions.push(
      sql<SqlBool>`lower(${sql.ref('generations.prompt')}) like ${containsPattern(q)} escape '\\'`,
    );
  if (model !== undefined) conditions.push(sql<SqlBool>`${sql.ref('generations.model')} = ${model}`);
  if (mode !== undefined) conditions.push(sql<SqlBool>`${sql.ref('generations.mode')} = ${mode}`);
  if (from !== undefined) conditions.push(sql<SqlBool>`${sql.ref(createdAt)} >= ${from}`);
  if (to !== undefined) conditions.push(sql<SqlBool>`${sql.ref(createdAt)} < ${to}`);
  return conditions;
}
