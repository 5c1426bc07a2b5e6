import { type Kysely, type Migration, sql } from 'kysely';
import { dialectOf } from '../dialect.js';

/**
 * A full-text index of generation prompts (issue 25: a LIKE scan of 6,000 long prompts on the
 * event loop slowed every account's requests). Words are matched by prefix, case- and (on SQLite)
 * accent-insensitively: see src/use-cases/generations/search-filters.ts and docs/website.md.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    if (dialectOf(db) === 'postgres') {
      // The expression the search states literally (to_tsvector('simple', prompt)): no stemming
      // and no stop words, so every word of a prompt can be found, in any language.
      await sql`create index generations_prompt_search on generations
        using gin (to_tsvector('simple', prompt))`.execute(db);
      return;
    }
    // Contentless (the prompt is not stored twice) with the generation's id kept beside it;
    // detail=none keeps only which rows hold a word (no positions: a word repeated 1,000 times in
    // one prompt costs one entry), and the prefix indexes answer 1–3 letter prefixes at once.
    await sql`create virtual table generations_search using fts5(
      generation_id unindexed,
      prompt,
      content = '',
      contentless_delete = 1,
      contentless_unindexed = 1,
      detail = none,
      prefix = '1 2 3',
      tokenize = 'unicode61 remove_diacritics 2'
    )`.execute(db);
    // Kept in sync by the database itself, in the transaction of every write (prompts never change).
    await sql`create trigger generations_search_insert after insert on generations begin
      insert into generations_search (generation_id, prompt) values (new.id, new.prompt);
    end`.execute(db);
    await sql`create trigger generations_search_delete after delete on generations begin
      delete from generations_search where generation_id = old.id;
    end`.execute(db);
    await sql`insert into generations_search (generation_id, prompt)
      select id, prompt from generations`.execute(db);
  },
};
