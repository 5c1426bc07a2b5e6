import { type DragEvent, useEffect, useRef, useState } from 'react';
import { Link, navigate } from '../../lib/router';
import type { SavedWork } from '../../lib/types';
import { Dialog } from '../../ui/dialog';
import { ManageCollectionsDialog } from './collections-dialog';
import type { Collection, Collections } from './curation';
import type { CurationFilter } from './curation-filters';
import { NewCollection } from './new-collection';
import type { SearchState } from './search';
import type { Selection } from './selection';
import { UndoToast } from './selection-bar';
import { SmartCollectionDialog } from './smart-collection-dialog';
import {
  describeFilters,
  filtersOfPage,
  type SmartCollection,
  sameFilters,
  useSmartCollections,
  useSmartCounts,
  worksUrlOf,
} from './smart-collections';
import { StarIcon } from './star-icon';
import {
  carriesWorks,
  collectionTarget,
  type DropTarget,
  droppedWorks,
  starTarget,
  useWorkDragSource,
  useWorksDrop,
} from './work-drag';
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

const worksLabel = (n: number) => (n === 1 ? '1 work' : `${n} works`);

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

function SidebarPanel({
  collections,
  smart,
  counts,
  filters,
  current,
  dragging,
  toCollection,
  toStars,
  onDrop,
  onNavigate,
}: {
  collections: Collections;
  smart: ReturnType<typeof useSmartCollections>;
  counts: ReadonlyMap<string, number>;
  filters: ReturnType<typeof filtersOfPage>;
  current: SmartCollection | undefined;
  dragging: number;
  toCollection: (collection: Collection) => DropTarget;
  toStars: DropTarget;
  onDrop: (target: DropTarget, ids: string[]) => void;
  onNavigate: () => void;
}) {
  const [over, setOver] = useState<string>();
  const [naming, setNaming] = useState(false);
  /** Works dropped on "+ New collection": they go into the collection named next. */
  const [pending, setPending] = useState<string[]>([]);
  const [managing, setManaging] = useState(false);
  const [editing, setEditing] = useState<SmartCollection | 'new'>();
  const known = new Set(collections.collections.map((c) => c.id));
  const nameOf = (id: string) => collections.collections.find((c) => c.id === id)?.name;
  const filtered = Object.keys(filters).length > 0;
  const only = (key: string) => Object.keys(filters).length === 1 && key in filters;
  const mark = (on: boolean) => (on ? ({ 'aria-current': 'page' } as const) : {});
  /** A drop target's handlers: `key` marks it while a drag is over it; `dropped` takes the works. */
  const target = (key: string, dropped: (ids: string[]) => void) => ({
    onDragOver: (event: DragEvent) => {
      if (!carriesWorks(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      setOver(key);
    },
    onDragLeave: () => setOver((id) => (id === key ? undefined : id)),
    onDrop: (event: DragEvent) => {
      if (!carriesWorks(event)) return;
      event.preventDefault();
      setOver(undefined);
      dropped(droppedWorks(event));
    },
  });
  const overClass = (key: string) => (over === key ? 'drop-over' : undefined);
  return (
    <nav className={`sidebar-panel${dragging > 0 ? ' drop-ready' : ''}`} aria-label="Collections">
      <ul className="sidebar-list">
        <li>
          <Link href="/works" onClick={onNavigate} {...mark(!filtered)}>
            All works
          </Link>
        </li>
        <li>
          <Link
            href="/works?starred=1"
            onClick={onNavigate}
            className={overClass('starred')}
            {...mark(only('starred') && !current)}
            {...target('starred', (ids) => onDrop(toStars, ids))}
          >
            <StarIcon filled={false} /> Starred
          </Link>
        </li>
      </ul>

      <h2 className="sidebar-heading">Collections</h2>
      {collections.collections.length === 0 ? (
        <p className="muted small">No collections yet. Create one, then drag works onto it.</p>
      ) : (
        <ul className="sidebar-list">
          {collections.collections.map((collection) => (
            <li key={collection.id}>
              <Link
                href={`/works?collection=${encodeURIComponent(collection.id)}`}
                onClick={onNavigate}
                className={overClass(collection.id)}
                data-collection-id={collection.id}
                {...mark(filters.collection === collection.id && !current)}
                {...target(collection.id, (ids) => onDrop(toCollection(collection), ids))}
              >
                <span className="sidebar-name">{collection.name}</span>
                <span className="sidebar-count" aria-hidden="true">
                  {collection.count}
                </span>
                <span className="visually-hidden">, {worksLabel(collection.count)}</span>
              </Link>
            </li>
          ))}
        </ul>
      )}

      {naming ? (
        <NewCollection
          collections={collections}
          pending={pending.length}
          onCreated={(collection) => onDrop(toCollection(collection), pending)}
          onDone={() => {
            setNaming(false);
            setPending([]);
          }}
        />
      ) : (
        <div className="sidebar-actions">
          <button
            type="button"
            className={`button small${over === 'new' ? ' drop-over' : ''}`}
            onClick={() => setNaming(true)}
            {...target('new', (ids) => {
              setPending(ids);
              setNaming(ids.length > 0);
            })}
          >
            + New collection
          </button>
          {collections.collections.length > 0 && (
            <button type="button" className="button small" onClick={() => setManaging(true)}>
              Manage
            </button>
          )}
        </div>
      )}
      {/* Below the targets, so that nothing under the pointer moves when a drag starts. */}
      {dragging > 0 && (
        <p className="sidebar-hint small">
          Drop on a collection to add {worksLabel(dragging)}, on Starred to star{' '}
          {dragging === 1 ? 'it' : 'them'}
        </p>
      )}
      <h2 className="sidebar-heading">Smart collections</h2>
      {smart.items.length === 0 ? (
        <p className="muted small">Saved searches appear here: search or filter, then save the search.</p>
      ) : (
        <ul className="sidebar-list">
          {smart.items.map((item) => (
            <li key={item.id} className="sidebar-smart">
              <Link
                href={worksUrlOf(item.filters, known)}
                onClick={onNavigate}
                title={describeFilters(item.filters, nameOf)}
                {...mark(item === current)}
              >
                <span className="sidebar-name">{item.name}</span>
                {counts.has(item.id) && (
                  <>
                    <span className="sidebar-count" aria-hidden="true">
                      {counts.get(item.id)}
                    </span>
                    <span className="visually-hidden">, {worksLabel(counts.get(item.id) ?? 0)}</span>
                  </>
                )}
              </Link>
              <button
                type="button"
                className="icon-button"
                aria-label={`Edit smart collection ${item.name}`}
                onClick={() => setEditing(item)}
              >
                ⋯
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="sidebar-actions">
        <button
          type="button"
          className="button small"
          disabled={!filtered || current !== undefined}
          title={filtered ? undefined : 'Search or filter first, then save the search'}
          onClick={() => setEditing('new')}
        >
          Save this search
        </button>
      </div>
      {smart.error && <p className="error-text small">{smart.error}</p>}
      {managing && (
        <ManageCollectionsDialog
          collections={collections}
          onClose={() => setManaging(false)}
          // The collection on screen deleted: the rest of the search stays.
          onDeleted={(id) => {
            if (filters.collection === id)
              navigate(worksUrlOf({ ...filters, collection: undefined }), { replace: true });
          }}
        />
      )}
      {editing && (
        <SmartCollectionDialog
          smart={smart}
          editing={editing === 'new' ? undefined : editing}
          filters={filters}
          describe={(f) => describeFilters(f, nameOf)}
          onClose={() => setEditing(undefined)}
        />
      )}
    </nav>
  );
}
