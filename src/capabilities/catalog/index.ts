// The catalog capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/catalog/ import from this file only (src/architecture.test.ts holds it).

export type { Catalog, UpstreamRoute } from './catalog.js';
export {
  actionRoutes,
  DEFAULT_CATALOG,
  generationModels,
  loadCatalog,
  maxImageCostOf,
  nearestAspect,
  parseCatalog,
  readCatalogSource,
  routesOf,
} from './catalog.js';
export { checkCatalog, formatCatalogReport, replacementOf } from './catalog-check.js';
export type { CatalogEntry } from './catalog-file.js';
export { DEFAULT_ASPECTS, DEFAULT_MODEL_ID, isGenerationModel } from './catalog-file.js';
export type { CatalogEdit, CatalogVersions } from './catalog-versions.js';
export { startCatalogVersions } from './catalog-versions.js';
export type { LiveCatalog } from './live-catalog.js';
export { catalogModel, modelFacts, modelList } from './model-list.js';
export type { ImageCost } from './prices.js';
export { costOfImage } from './prices.js';
export { routeIdOf } from './route-id.js';
export { reportCatalogAtStart } from './startup-check.js';
