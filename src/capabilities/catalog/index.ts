// The catalog capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/catalog/ import from this file only (src/architecture.test.ts holds it).

export type { Catalog, CatalogEntry, UpstreamRoute } from './catalog.js';
export {
  DEFAULT_ASPECTS,
  DEFAULT_CATALOG,
  DEFAULT_MODEL_ID,
  loadCatalog,
  maxImageCostOf,
  nearestAspect,
  parseCatalog,
  routesOf,
} from './catalog.js';
export { checkCatalog, formatCatalogReport, replacementOf } from './catalog-check.js';
export { catalogModel, modelFacts, modelList } from './model-list.js';
export type { ImageCost } from './prices.js';
export { costOfImage } from './prices.js';
export { routeIdOf } from './route-id.js';
export { reportCatalogAtStart } from './startup-check.js';
