/**
 * The shape of a table that keeps versions of one operator document (src/infra/store/versioned-documents.ts):
 * the model catalog's `catalog_versions` (migration 0064), the tier policies' `policy_versions` (0065).
 */

/** Where a version came from: the document's file at a start, the console, the admin API, the CLI. */
export type DocumentVersionSource = 'file' | 'console' | 'api' | 'cli';

/** One version of a document: never updated, never deleted; the highest version is in force. */
export interface DocumentVersionsTable {
  version: number;
  /** The whole document as JSON. */
  document_json: string;
  source: DocumentVersionSource;
  /** For a version read from a file: the sha256 of its bytes (hex); null otherwise. */
  file_sha256: string | null;
  created_at: number;
  /** The operator's e-mail, or `cli:<OS user>`, or `file:<the file>` for a file read at a start. */
  created_by: string;
}
