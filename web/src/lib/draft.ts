import { createStore } from './store';
import type { Mode } from './types';

/** A reference image of the Create form: always an Atelier URL (uploaded first). */
export interface DraftReference {
  url: string;
  name: string;
  width?: number;
  height?: number;
  bytes?: number;
}

/** The Create form, shared so "reuse settings" and "use as reference" can fill it from other pages. */
export interface Draft {
  prompt: string;
  model: string;
  mode: Mode;
  aspect: string;
  imageSize: string;
  count: number;
  references: DraftReference[];
}

// 2K, the API's default (the spec's): the same request gives the same image from the website and
// from the API, and thumbnails keep the pages light whatever the size.
// In localStorage: the draft survives a new tab and a browser restart, not only a reload.
export const draftStore = createStore<Draft>(
  { prompt: '', model: '', mode: 'text', aspect: '1:1', imageSize: '2K', count: 1, references: [] },
  'atelier.draft',
  'local',
);

/** Adds a reference to the draft (no duplicates) and leaves text mode, which takes none. */
export function addDraftReference(reference: DraftReference): void {
  draftStore.set((draft) => {
    if (draft.references.some((r) => r.url === reference.url)) return draft;
    const references = [...draft.references, reference];
    const mode: Mode = draft.mode === 'text' ? 'edit' : draft.mode;
    // Edit takes exactly one reference: a new one replaces the old.
    return { ...draft, mode, references: mode === 'edit' ? [reference] : references };
  });
}
