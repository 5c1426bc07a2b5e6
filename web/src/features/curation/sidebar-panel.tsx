import type { DragEvent } from 'react';
import { useState } from 'react';
import { Link, navigate } from '../../lib/router';
import { ManageCollectionsDialog } from './collections-dialog';
import type { Collection, Collections } from './curation';
import { NewCollection } from './new-collection';
import { SmartCollectionDialog } from './smart-collection-dialog';
import {
  describeFilters,
  type filtersOfPage,
  type SmartCollection,
  type useSmartCollections,
  worksUrlOf,
} from './smart-collections';
import { StarIcon } from './star-icon';
import { carriesWorks, type DropTarget, droppedWorks } from './work-drag';

const worksLabel = (n: number) => (n === 1 ? '1 work' : `${n} works`);
const mark = (on: boolean) => (on ? ({ 'aria-current': 'page' } as const) : {});
type Filters = ReturnType<typeof filtersOfPage>;
type Smart = ReturnType<typeof useSmartCollections>;

/** Drop targets' handlers: `target(key, dropped)` marks `key` while a drag of works is over it; `dropped` takes the works. */
function useDropTargets() {
  const [over, setOver] = useState<string>();
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
  return { over, target, overClass };
}
type DropTargets = ReturnType<typeof useDropTargets>;

/** The sidebar's panel: All works and Starred, the collections, the smart collections, their dialogs. */
export function SidebarPanel({
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
  smart: Smart;
  counts: ReadonlyMap<string, number>;
  filters: Filters;
  current: SmartCollection | undefined;
  dragging: number;
  toCollection: (collection: Collection) => DropTarget;
  toStars: DropTarget;
  onDrop: (target: DropTarget, ids: string[]) => void;
  onNavigate: () => void;
}) {
  const drops = useDropTargets();
  const [managing, setManaging] = useState(false);
  const [editing, setEditing] = useState<SmartCollection | 'new'>();
  const nameOf = (id: string) => collections.collections.find((c) => c.id === id)?.name;
  const filtered = Object.keys(filters).length > 0;
  const only = (key: string) => Object.keys(filters).length === 1 && key in filters;
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
            className={drops.overClass('starred')}
            {...mark(only('starred') && !current)}
            {...drops.target('starred', (ids) => onDrop(toStars, ids))}
          >
            <StarIcon filled={false} /> Starred
          </Link>
        </li>
      </ul>
      <CollectionSection
        collections={collections}
        filters={filters}
        current={current}
        drops={drops}
        toCollection={toCollection}
        onDrop={onDrop}
        onNavigate={onNavigate}
        onManage={() => setManaging(true)}
      />
      {/* Below the targets, so that nothing under the pointer moves when a drag starts. */}
      {dragging > 0 && (
        <p className="sidebar-hint small">
          Drop on a collection to add {worksLabel(dragging)}, on Starred to star{' '}
          {dragging === 1 ? 'it' : 'them'}
        </p>
      )}
      <SmartSection
        smart={smart}
        counts={counts}
        known={new Set(collections.collections.map((c) => c.id))}
        nameOf={nameOf}
        filtered={filtered}
        current={current}
        onNavigate={onNavigate}
        onEdit={setEditing}
      />
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

/** The collections (drop targets, with their counts), "+ New collection" (a drop target too) and Manage. */
function CollectionSection({
  collections,
  filters,
  current,
  drops,
  toCollection,
  onDrop,
  onNavigate,
  onManage,
}: {
  collections: Collections;
  filters: Filters;
  current: SmartCollection | undefined;
  drops: DropTargets;
  toCollection: (collection: Collection) => DropTarget;
  onDrop: (target: DropTarget, ids: string[]) => void;
  onNavigate: () => void;
  onManage: () => void;
}) {
  const [naming, setNaming] = useState(false);
  /** Works dropped on "+ New collection": they go into the collection named next. */
  const [pending, setPending] = useState<string[]>([]);
  return (
    <>
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
                className={drops.overClass(collection.id)}
                data-collection-id={collection.id}
                {...mark(filters.collection === collection.id && !current)}
                {...drops.target(collection.id, (ids) => onDrop(toCollection(collection), ids))}
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
            className={`button small${drops.over === 'new' ? ' drop-over' : ''}`}
            onClick={() => setNaming(true)}
            {...drops.target('new', (ids) => {
              setPending(ids);
              setNaming(ids.length > 0);
            })}
          >
            + New collection
          </button>
          {collections.collections.length > 0 && (
            <button type="button" className="button small" onClick={onManage}>
              Manage
            </button>
          )}
        </div>
      )}
    </>
  );
}

/** The smart collections (saved searches, with how many works each finds) and "Save this search". */
function SmartSection({
  smart,
  counts,
  known,
  nameOf,
  filtered,
  current,
  onNavigate,
  onEdit,
}: {
  smart: Smart;
  counts: ReadonlyMap<string, number>;
  known: Set<string>;
  nameOf: (id: string) => string | undefined;
  filtered: boolean;
  current: SmartCollection | undefined;
  onNavigate: () => void;
  onEdit: (editing: SmartCollection | 'new') => void;
}) {
  return (
    <>
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
                onClick={() => onEdit(item)}
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
          onClick={() => onEdit('new')}
        >
          Save this search
        </button>
      </div>
      {smart.error && <p className="error-text small">{smart.error}</p>}
    </>
  );
}
