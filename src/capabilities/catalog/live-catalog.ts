/**
 * The catalog a node runs on, swapped whole when a new version comes into force (an edit here, a
 * newer version another node stored): every reader asks it at each use (`models`, `get`), so the
 * next request, quote or task step sees the new models, routes, prices and limits. A swap is one
 * assignment: no reader ever sees half of two versions.
 */
import type { DocumentVersion } from '../../infra/store/versioned-documents.js';
import type { Catalog } from './catalog.js';

/** Which version is in force, and where it came from (the document as stored). */
export type CatalogVersionInForce = DocumentVersion;

export interface LiveCatalog extends Catalog {
  /** The version in force on this node. */
  readonly inForce: CatalogVersionInForce;
  /** Puts `catalog` (parsed from `version`) in force, then tells the listeners. */
  swap(catalog: Catalog, version: CatalogVersionInForce): void;
  /** Called after each swap; returns the unsubscribe. */
  onChange(listener: (version: CatalogVersionInForce) => void): () => void;
}

export function createLiveCatalog(first: Catalog, version: CatalogVersionInForce): LiveCatalog {
  let current = { catalog: first, version };
  const listeners = new Set<(version: CatalogVersionInForce) => void>();
  return {
    get models() {
      return current.catalog.models;
    },
    get: (id) => current.catalog.get(id),
    providers: () => current.catalog.providers(),
    get inForce() {
      return current.version;
    },
    swap(catalog, next) {
      current = { catalog, version: next };
      for (const listener of listeners) listener(next);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
