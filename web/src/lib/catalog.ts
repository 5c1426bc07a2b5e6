import { useEffect, useState } from 'react';
import { api } from './api';
import type { Catalog, CatalogModel, Mode, ModelList } from './types';

let cached: Promise<Catalog> | undefined;

/** The model catalog (GET /api/v1/models), fetched once per page load. */
export function loadCatalog(): Promise<Catalog> {
  cached ??= api.get<ModelList>('/api/v1/models').then(
    (list) => ({
      default_model: list.default_model,
      models: list.data,
      // Only the configured actions (issue 45); a server without them lists none.
      actions: list.actions ?? [],
    }),
    (error) => {
      cached = undefined;
      throw error;
    },
  );
  return cached;
}

export function useCatalog(): { catalog?: Catalog; error?: unknown } {
  const [state, setState] = useState<{ catalog?: Catalog; error?: unknown }>({});
  useEffect(() => {
    let live = true;
    loadCatalog().then(
      (catalog) => live && setState({ catalog }),
      (error) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
  }, []);
  return state;
}

export interface GenerationSettings {
  model: string;
  mode: Mode;
  aspect: string;
  imageSize: string;
  count: number;
}

/** Brings settings within what the chosen model allows, keeping every value that still fits. */
export function fitToModel(
  settings: GenerationSettings,
  catalog: Catalog,
): GenerationSettings & { entry: CatalogModel } {
  const entry =
    catalog.models.find((m) => m.id === settings.model) ??
    catalog.models.find((m) => m.id === catalog.default_model) ??
    catalog.models[0];
  if (!entry) throw new Error('The catalog lists no models');
  const pick = <T>(value: T, allowed: readonly T[], preferred: T): T =>
    allowed.includes(value) ? value : allowed.includes(preferred) ? preferred : (allowed[0] as T);
  return {
    entry,
    model: entry.id,
    mode: pick(settings.mode, entry.modes, 'text'),
    aspect: pick(settings.aspect, entry.aspects, '1:1'),
    imageSize: pick(settings.imageSize, entry.sizes as string[], '2K'),
    count: Math.min(Math.max(1, settings.count), entry.maxCount),
  };
}
