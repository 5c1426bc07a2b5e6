import { type DragEvent, type FormEvent, useEffect, useState } from 'react';
import { messageOf } from '../lib/api';
import type { Collection, Collections } from '../lib/curation';
import { Link, navigate } from '../lib/router';
import type { SearchState } from '../lib/search';
import type { Selection } from '../lib/selection';
import {
  describeFilters,
  filtersOfPage,
  type SmartCollection,
  sameFilters,
  useSmartCollections,
  worksUrlOf,
} from '../lib/smart-collections';
import type { SavedWork } from '../lib/types';
import { carriesWorks, droppedWorks, useCollectionDrop, useWorkDragSource } from '../lib/work-drag';
import { ManageCollectionsDialog } from './curation/collections-dialog';
import type { CurationFilter } from './curation/curation-filters';
import { UndoToast } from './curation/selection-bar';
import { StarIcon } from './curation/star-icon';
import { Dialog } from './dialog';
import { SmartCollectionDialog } from './smart-collection-dialog';
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
 * (saved searches), the one shown marked. Beside the grid on a wide screen; a drawer on a narrow
 * one. The selection bar's "Add to collection" stays the keyboard's way to add works.
 */
export function CollectionsSidebar({
  collections,
  selection,
  works,
  query,
  curation,
}: {
  collections: Collections;
  selection: Selection;
  works: readonly SavedWork[];
  query: SearchState;
  curation: CurationFilter;
}) {
  const narrow = useMediaQuery(NARROW);
  const [drawer, setDrawer] = useState(false);
  const smart = useSmartCollections();
  const dragging = useWorkDragSource(
    selection,
    works.map((w) => w.id),
  );
  const drop = useCollectionDrop(collections, (id) => works.find((w) => w.id === id)?.collections ?? []);
  const filters = filtersOfPage(query, curation);
  const current = smart.items.find((s) => sameFilters(s.filters, filters));
  const panel = (
    <SidebarPanel
      collections={collections}
      smart={smart}
      filters={filters}
      current={current}
      dragging={dragging}
      onDrop={(collection, ids) => void drop.drop(collection, ids)}
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
  filters,
  current,
  dragging,
  onDrop,
  onNavigate,
}: {
  collections: Collections;
  smart: ReturnType<typeof useSmartCollections>;
  filters: ReturnType<typeof filtersOfPage>;
  current: SmartCollection | undefined;
  dragging: number;
  onDrop: (collection: Collection, ids: string[]) => void;
  onNavigate: () => void;
}) {
  const [over, setOver] = useState<string>();
  const [naming, setNaming] = useState(false);
  const [managing, setManaging] = useState(false);
  const [editing, setEditing] = useState<SmartCollection | 'new'>();
  const known = new Set(collections.collections.map((c) => c.id));
  const nameOf = (id: string) => collections.collections.find((c) => c.id === id)?.name;
  const filtered = Object.keys(filters).length > 0;
  const only = (key: string) => Object.keys(filters).length === 1 && key in filters;
  const mark = (on: boolean) => (on ? ({ 'aria-current': 'page' } as const) : {});
  const target = (collection: Collection) => ({
    onDragOver: (event: DragEvent) => {
      if (!carriesWorks(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      setOver(collection.id);
    },
    onDragLeave: () => setOver((id) => (id === collection.id ? undefined : id)),
    onDrop: (event: DragEvent) => {
      if (!carriesWorks(event)) return;
      event.preventDefault();
      setOver(undefined);
      onDrop(collection, droppedWorks(event));
    },
  });
  return (
    <nav className={`sidebar-panel${dragging > 0 ? ' drop-ready' : ''}`} aria-label="Collections">
      <ul className="sidebar-list">
        <li>
          <Link href="/works" onClick={onNavigate} {...mark(!filtered)}>
            All works
          </Link>
        </li>
        <li>
          <Link href="/works?starred=1" onClick={onNavigate} {...mark(only('starred') && !current)}>
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
                className={over === collection.id ? 'drop-over' : undefined}
                data-collection-id={collection.id}
                {...mark(filters.collection === collection.id && !current)}
                {...target(collection)}
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
        <NewCollection collections={collections} onDone={() => setNaming(false)} />
      ) : (
        <div className="sidebar-actions">
          <button type="button" className="button small" onClick={() => setNaming(true)}>
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
        <p className="sidebar-hint small">Drop on a collection to add {worksLabel(dragging)}</p>
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

/** The name of a new collection, typed in the sidebar. */
function NewCollection({ collections, onDone }: { collections: Collections; onDone: () => void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await collections.create(name.trim());
      onDone();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <form className="sidebar-new" onSubmit={(event) => void submit(event)}>
      <input
        aria-label="Name of the new collection"
        value={name}
        maxLength={100}
        // biome-ignore lint/a11y/noAutofocus: the person just asked for this field.
        autoFocus
        onChange={(event) => setName(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onDone();
        }}
      />
      <button type="submit" className="button small primary" disabled={!name.trim()}>
        Create
      </button>
      <button type="button" className="button small" onClick={onDone}>
        Cancel
      </button>
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
