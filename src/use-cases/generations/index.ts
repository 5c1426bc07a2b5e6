// The generations use case's face: everything other folders may use from it, and nothing else.
// Files outside src/use-cases/generations/ import from this file only (src/architecture.test.ts holds it).

export type { GenerationsRepository } from './generations-repository.js';
export { createGenerationsRepository, generationModel } from './generations-repository.js';
export type { GenerationsService } from './generations-service.js';
export { createGenerationsService } from './generations-service.js';
export { filterConditions, hasFilters, queryWords } from './search-filters.js';
