import { type Expression, type SqlBool, sql } from 'kysely';
import type { SearchFilters } from '../../base/contract/website/shared.js';
import { curationConditions } from '../../capabilities/curation/index.js';
import type { Dialect } from '../../infra/store/dialect.js';

/** True when any filter is set (a plain listing keeps its cheaper path and kept totals). */
export function hasFilters(filters: SearchFilters): boolean {
  return Object.values(filters).some((value) => value !== undefined);
}

/** At most this many words of a query are searched for (the query itself is at most 200 characters). */
const MAX_QUERY_WORDS = 16;

/**
 * The words of a search query, lower-cased: runs of letters, digits and combining marks, as the
 * full-text index splits prompts. Punctuation and symbols separate words and are not searched for.
 */
export function queryWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).slice(0, MAX_QUERY_WORDS);
}

/**
 * The prompt condition: every word of `q` begins a word of the prompt ("light fog" finds "A
 * Lighthouse in fog"), case-insensitive, answered from the full-text index of migration 0018 —
 * SQLite's FTS5 (accents ignored too), PostgreSQL's GIN index of `to_tsvector('simple', prompt)` —
 * never by reading prompts. A query with no word finds nothing.
 */
function promptMatches(q: string, dialect: Dialect): Expression<SqlBool> {
  const words = queryWords(q);
  if (words.length === 0) return sql<SqlBool>`1 = 0`;
  if (dialect === 'postgres') {
    const query = words.map((word) => `'${word}':*`).join(' & ');
    return sql<SqlBool>`to_tsvector('simple', ${sql.ref('generations.prompt')}) @@ to_tsquery('simple', ${query})`;
  }
  const query = words.map((word) => `"${word}"*`).join(' ');
  return sql<SqlBool>`${sql.ref('generations.id')} in (select generation_id from generations_search where generations_search match ${query})`;
}

/**
 * The search's conditions on the `generations` table: the prompt by its full-text index (word
 * prefixes, see `promptMatches`), model and mode exactly, creation time in [from, to), and a star or
 * a collection (src/capabilities/curation's own conditions on its tables).
 */
export function filterConditions(
  filters: SearchFilters,
  dialect: Dialect,
  createdAt: 'generations.created_at' | 'assets.created_at' = 'generations.created_at',
): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [];
  const { q, model, mode, from, to } = filters;
  if (q !== undefined) conditions.push(promptMatches(q, dialect));
  if (model !== undefined) conditions.push(sql<SqlBool>`${sql.ref('generations.model')} = ${model}`);
  if (mode !== undefined) conditions.push(sql<SqlBool>`${sql.ref('generations.mode')} = ${mode}`);
  if (from !== undefined) conditions.push(sql<SqlBool>`${sql.ref(createdAt)} >= ${from}`);
  if (to !== undefined) conditions.push(sql<SqlBool>`${sql.ref(createdAt)} < ${to}`);
  conditions.push(...curationConditions(filters));
  return conditions;
}
