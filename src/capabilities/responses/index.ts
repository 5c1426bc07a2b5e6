// The responses capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/responses/ import from this file only (src/architecture.test.ts holds it).

export type { Responses, StoredResponse } from './responses-store.js';
export { createResponses } from './responses-store.js';
