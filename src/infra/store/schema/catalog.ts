/** The model catalog's versions (src/capabilities/catalog/catalog-versions.ts; migration 0064). */
import type { DocumentVersionsTable } from './document-versions.js';

export interface CatalogTables {
  catalog_versions: DocumentVersionsTable;
}
