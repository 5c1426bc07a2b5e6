// The assets capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/assets/ import from this file only (src/architecture.test.ts holds it).

export type { AssetsRepository } from './assets-repository.js';
export { createAssetsRepository, toAssetBase } from './assets-repository.js';
