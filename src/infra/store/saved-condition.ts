import { sql } from 'kysely';

/** The gallery's partial-index condition, stated literally by its queries too (see generations-repository). */
export const savedCondition = sql<boolean>`${sql.ref('rejected')} = 0 and ${sql.ref('deleted_at')} is null`;

/** The deleted works' partial-index condition (migration 0037), stated literally by its query too. */
export const removedCondition = sql<boolean>`${sql.ref('deleted_at')} is not null`;
