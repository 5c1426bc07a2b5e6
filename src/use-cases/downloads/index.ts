// The downloads use case's face: everything other folders may use from it, and nothing else.
// Files outside src/use-cases/downloads/ import from this file only (src/architecture.test.ts holds it).

export { type AccountExport, createAccountExport, EXPORT_PAGE } from './account-export.js';
export type { ZipDownloads } from './zip-download.js';
export { createZipDownloads, zipHeaders } from './zip-download.js';
