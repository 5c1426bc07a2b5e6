/** The model catalog's versions (src/capabilities/catalog; migration 0064). */

/** Where a version came from: the catalog file at a start, the console, the admin API, the CLI. */
export type DocumentVersionSource = 'file' | 'console' | 'api' | 'cli';

/**
 * One version of a document kept in the store with its history (src/infra/store/versioned-documents.ts):
 * never updated, never deleted; the highest version is in force.
 */
export interface DocumentVersionsTable {
  version: number;
  /** The whole document as JSON. */
  document_json: string;
  source: DocumentVersionSource;
  /** For a version read from a file: the sha256 of its bytes (hex); null otherwise. */
  file_sha256: string | null;
  created_at: number;
  /** The operator's e-mail, or `cli:<OS user>`, or `file:<path>` for a file read at a start. */
  created_by: string;
}

export interface CatalogTables {
  catalog_versions: DocumentVersionsTable;
}
