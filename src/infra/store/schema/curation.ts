/**
 * The tables of src/capabilities/curation (migration 0032): stars and collections of works, per account; and the
 * website's smart collections (saved searches of those works, migration 0042).
 */

/** A work an account starred (owned by src/capabilities/curation; migration 0032). */
export interface StarredWorksTable {
  account_id: string;
  generation_id: string;
  created_at: number;
}

/** A named collection of an account's works (owned by src/capabilities/curation; migration 0032). */
export interface CollectionsTable {
  id: string;
  account_id: string;
  name: string;
  /** The name in lower case: an account's collection names are unique ignoring case. */
  name_key: string;
  created_at: number;
  updated_at: number;
}

/** A work in a collection (owned by src/capabilities/curation; migration 0032). */
export interface CollectionItemsTable {
  collection_id: string;
  generation_id: string;
  /** The collection's account, so a page's marks are read by account and work. */
  account_id: string;
  added_at: number;
}

/**
 * A smart collection: a saved search of Saved works, per account (owned by src/edges/website, whose page's
 * filters it keeps; migration 0042).
 */
export interface SmartCollectionsTable {
  id: string;
  account_id: string;
  name: string;
  /** The name in lower case: an account's smart collection names are unique ignoring case. */
  name_key: string;
  /** The saved filters (JSON: q, model, mode, from, to, starred, collection). */
  filters_json: string;
  created_at: number;
  updated_at: number;
}

/** The tables above, as the database's schema (`Database`) lists them. */
export interface CurationTables {
  starred_works: StarredWorksTable;
  collections: CollectionsTable;
  collection_items: CollectionItemsTable;
  smart_collections: SmartCollectionsTable;
}
