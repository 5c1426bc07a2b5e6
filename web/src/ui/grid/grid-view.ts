import { createStore, useStore } from '../../lib/store';
import type { Density, GalleryKind } from './virtual-rows';

/**
 * How a person likes the galleries shown (issue 37): card size (density) and day headings per
 * gallery, and Saved works' starred works pinned first. Kept in localStorage: a view preference of
 * this browser, like the draft, not a property of the account or of a shared link.
 */
export interface GalleryView {
  density: Density;
  byDay: boolean;
}

export interface GridView {
  works: GalleryView;
  library: GalleryView;
  /** Saved works: starred works first, then the rest (each newest first). */
  starredFirst: boolean;
}

export const gridViewStore = createStore<GridView>(
  {
    works: { density: 'comfortable', byDay: true },
    library: { density: 'comfortable', byDay: true },
    starredFirst: false,
  },
  'atelier.grid-view',
  'local',
);

/** One gallery's view and its setter. */
export function useGalleryView(kind: GalleryKind) {
  const view = useStore(gridViewStore);
  const set = (next: Partial<GalleryView>) =>
    gridViewStore.set((current) => ({ ...current, [kind]: { ...current[kind], ...next } }));
  return { ...view[kind], set };
}

/** Saved works' starred-first choice and its setter. */
export function useStarredFirst(): [boolean, (next: boolean) => void] {
  const view = useStore(gridViewStore);
  return [view.starredFirst, (next) => gridViewStore.set((current) => ({ ...current, starredFirst: next }))];
}
