// The curation capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/curation/ import from this file only (src/architecture.test.ts holds it).

export type { Curation } from './curation-service.js';
export { createCuration, curationConditions } from './curation-service.js';
