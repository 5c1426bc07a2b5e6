import { useEffect, useRef, useState } from 'react';
import type { SavedWork } from '../../lib/types';
import { Dialog } from '../../ui/dialog';
import type { Collections } from './curation';
import type { CurationFilter } from './curation-filters';
import type { SearchState } from './search';
import type { Selection } from './selection';
import { UndoToast } from './selection-bar';
import { SidebarPanel } from './sidebar-panel';
import { filtersOfPage, sameFilters, useSmartCollections, useSmartCounts } from './smart-collections';
import { collectionTarget, starTarget, useWorkDragSource, useWorksDrop } from './work-drag';
import './collections-sidebar.css';

/** Where the sidebar folds into a drawer (the site's tablet-and-phone breakpoint). */
const NARROW = '(max-width: 900px)';

function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const change = () => setMatches(list.matches);
    change();
    list.addEventListener('change', change);
    return () => list.removeEventListener('change', change);
  }, [query]);
  return matches;
}

/**
 * Saved works' collections sidebar (issue 37): All works, Starred, the account's collections (with
 * their counts; works dragged from the grid drop onto one, with Undo) and its smart collections
 * (saved searches, with how many works each finds), the one shown marked. Works dropped on Starred
 * are starred; dropped on "+ New collection", they go into the collection named next. Beside the
 * grid on a wide screen; a drawer on a narrow one. The selection bar's "Add to collection" and the
 * stars stay the keyboard's way.
 */
export function CollectionsSidebar({
  collections,
  selection,
  works,
  query,
  curation,
  onStarred,
}: {
  collections: Collections;
  selection: Selection;
  works: readonly SavedWork[];
  query: SearchState;
  curation: CurationFilter;
  /** Works starred (or unstarred, by Undo) by a drop on Starred. */
  onStarred: (workIds: string[], starred: boolean) => void;
}) {
  const narrow = useMediaQuery(NARROW);
  const [drawer, setDrawer] = useState(false);
  const smart = useSmartCollections();
  const dragging = useWorkDragSource(
    selection,
    works.map((w) => w.id),
  );
  const drop = useWorksDrop();
  const added = useRef(new Map<string, Set<string>>()).current;
  const workOf = (id: string) => works.find((w) => w.id === id);
  const filters = filtersOfPage(query, curation);
  const current = smart.items.find((s) => sameFilters(s.filters, filters));
  // Counted again when what they count may have changed: stars, collections, works deleted.
  const counts = useSmartCounts(
    smart.items,
    collections.collections,
    `${works.length}:${works.filter((w) => w.starred).length}:${collections.collections.map((c) => c.count).join()}`,
  );
  const panel = (
    <SidebarPanel
      collections={collections}
      smart={smart}
      counts={counts}
      filters={filters}
      current={current}
      dragging={dragging}
      toCollection={(collection) =>
        collectionTarget(collection, collections, (id) => workOf(id)?.collections ?? [], added)
      }
      toStars={starTarget((id) => workOf(id)?.starred === true, onStarred)}
      onDrop={(target, ids) => void drop.drop(target, ids)}
      onNavigate={() => setDrawer(false)}
    />
  );
  const shown =
    current?.name ??
    collections.collections.find((c) => c.id === curation.collection)?.name ??
    (filters.starred ? 'Starred' : 'All works');
  return (
    <>
      {narrow ? (
        <div className="sidebar-toggle">
          <button
            type="button"
            className="button small"
            aria-haspopup="dialog"
            onClick={() => setDrawer(true)}
          >
            Collections
          </button>
          <span className="muted small">Showing: {shown}</span>
        </div>
      ) : (
        <aside className="collections-sidebar">{panel}</aside>
      )}
      {narrow && drawer && (
        <Dialog title="Collections and searches" onClose={() => setDrawer(false)}>
          <div className="sidebar-drawer">{panel}</div>
        </Dialog>
      )}
      <UndoToast
        offer={drop.offer}
        error={drop.error}
        onUndo={() => void drop.offer?.undo?.()}
        onDismiss={drop.dismiss}
      />
    </>
  );
}
