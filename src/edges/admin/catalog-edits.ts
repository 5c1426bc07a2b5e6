/**
 * The narrow edits of the catalog an operator makes most (PATCH /catalog/models/:id): one model's
 * own route's price, capacity limits and lifecycle, and its list of fallback routes. Each makes a
 * whole new document (the rest kept as it is), which the catalog's loader then checks.
 */

type Json = Record<string, unknown>;

/** The fields an edit may set; undefined keeps the field, null removes it. */
export interface ModelEdit {
  price?: Json | null | undefined;
  capacity?: Json | null | undefined;
  lifecycle?: Json | null | undefined;
  fallbacks?: Json[] | undefined;
}

const FIELDS = ['price', 'capacity', 'lifecycle', 'fallbacks'] as const;

/** The document with model `id` edited, and the model before and after; undefined when there is no such model. */
export function modelEdited(document: unknown, id: string, edit: ModelEdit) {
  const models = (document as { models?: unknown }).models;
  if (!Array.isArray(models)) return undefined;
  const at = models.findIndex((model) => (model as Json | null)?.id === id);
  if (at < 0) return undefined;
  const before = models[at] as Json;
  const after: Json = { ...before };
  for (const field of FIELDS) {
    const value = edit[field];
    if (value === null) delete after[field];
    else if (value !== undefined) after[field] = value;
  }
  const next = [...models];
  next[at] = after;
  const edited: Json = { ...(document as Json), models: next };
  return { document: edited, before, after };
}
