import { sql } from 'kysely';

/** The gallery's partial-index condition, stated literally by its queries too (see generations-repository). */
export const savedCondition = sql<boolean>`${sql.ref('rejected')} = 0 and ${sql.ref('deleted_at')} is null`;
