import { useCallback, useMemo, useRef, useState } from 'react';
import { api } from '../../lib/api';
import { navigate, useLocation } from '../../lib/router';
import { captionOf } from '../../lib/text';
import type { LibraryAsset, LibraryPage as LibraryPageAnswer } from '../../lib/types';
import type { AssetKind } from '../../lib/vocabulary';
import { ChoiceGroup } from '../../ui/choice-group';
import { focusSoon } from '../../ui/focus-soon';
import { useGalleryView } from '../../ui/grid/grid-view';
import { GridViewControls } from '../../ui/grid/grid-view-controls';
import { usePagedList } from '../../ui/grid/paged-list';
import { VirtualGrid } from '../../ui/grid/virtual-grid';
import { dayHeading, isPlaceholder, type Placeholder } from '../../ui/grid/virtual-rows';
import { LoadMore } from '../../ui/load-more';
import { deleteWorks, useCollections } from '../curation/curation';
import { useDeferredDelete } from '../curation/deferred-delete';
import { isSearching, type SearchState, searchFromUrl, searchToApi, searchToUrl } from '../curation/search';
import { SearchBar } from '../curation/search-bar';
import { useSelection } from '../curation/selection';
import { SelectionBarWithUndo } from '../curation/selection-bar';
import { useCompareSelection } from '../lightbox/compare-selection';
import { Lightbox } from '../lightbox/lightbox';
import { itemsOfAssets } from '../lightbox/lightbox-items';
import { deleteUpload, UploadDeleteDialog } from '../lightbox/upload-delete';
import { LibraryCard } from './library-card';

const PAGE_SIZE = 30;
type Kind = '' | AssetKind;

const assetKey = (asset: LibraryAsset) => asset.id;
const assetDay = (asset: LibraryAsset) => dayHeading(asset.createdAt);
/** A card's height before it is measured: a square thumbnail and three lines. */
const estimateAsset = (_asset: LibraryAsset, columnWidth: number) => columnWidth + 130;
/** A card of a page not read yet: the same. */
const placeholderAsset = (columnWidth: number) => columnWidth + 130;

/** The asset library: every uploaded reference and every result, searchable and filterable, the query in the URL. */
export default function LibraryPage() {
  const { search } = useLocation();
  const kindParam = search.get('kind');
  const kind: Kind = kindParam === 'upload' || kindParam === 'result' ? kindParam : '';
  const query = searchFromUrl(search);
  const go = (next: { kind?: Kind; search?: SearchState }) =>
    navigate(`/library${searchToUrl(next.search ?? query, { kind: next.kind ?? kind })}`, { replace: true });
  const [notice, setNotice] = useState('');
  const assets = useLibraryList(kind, searchToApi(query), setNotice);
  const { list, visible, deferred } = assets;
  const [viewing, setViewing] = useState<LibraryAsset>();
  const [deletingUpload, setDeletingUpload] = useState<LibraryAsset>();
  const sentinel = useRef<HTMLDivElement>(null);
  const collections = useCollections();
  const view = useGalleryView('library');
  const selection = useSelection(visible.map((a) => a.id));
  /** The selection bar's Compare, as on Saved works: the images the lightbox opens compared. */
  const compare = useCompareSelection(itemsOfAssets, setNotice);
  const selectedWorks = [
    ...new Set(
      visible.flatMap((a) => (selection.selected.has(a.id) && a.generationId ? [a.generationId] : [])),
    ),
  ];

  return (
    <div className="page">
      <LibraryHeader total={assets.shownTotal} kind={kind} query={query} go={go} />
      {list.total === 0 && !list.loading && <LibraryEmpty searching={isSearching(query)} kind={kind} />}
      <p className="visually-hidden" aria-live="polite">
        {notice}
      </p>
      <LibraryGrid
        slots={assets.slots}
        view={view}
        selection={selection}
        list={list}
        onView={setViewing}
        onDeleteUpload={setDeletingUpload}
      />
      <SelectionBarWithUndo
        selection={selection}
        zip={{ assets: [...selection.selected] }}
        workIds={selectedWorks}
        collections={collections}
        onNotice={setNotice}
        deferred={deferred}
        onCompare={() => {
          const first = compare.start(visible.filter((a) => selection.selected.has(a.id)));
          if (first) setViewing(first);
        }}
      />
      <LoadMore
        sentinel={sentinel}
        more={list.hasMore}
        loading={list.loading}
        error={list.error}
        onLoadMore={list.error ? list.retry : list.loadNext}
      />
      {viewing && (
        <LibraryLightbox
          assets={assets}
          startKey={compare.keys?.[0] ?? viewing.id}
          compareKeys={compare.keys}
          onClose={() => {
            setViewing(undefined);
            compare.stop();
          }}
        />
      )}
      {deletingUpload && (
        <UploadDeleteDialog
          assetId={deletingUpload.id}
          name={captionOf(deletingUpload)}
          onDeleted={() => {
            // Focus goes to the next card (the previous one at the end), not to <body>.
            const at = visible.findIndex((a) => a.id === deletingUpload.id);
            const next = visible[at + 1] ?? visible[at - 1];
            assets.uploadGone(deletingUpload.id);
            setDeletingUpload(undefined);
            focusSoon(next ? `[data-asset-id="${CSS.escape(next.id)}"] .asset-thumb` : 'h1');
          }}
          onCancel={() => setDeletingUpload(undefined)}
        />
      )}
    </div>
  );
}

/**
 * The library's list: its whole height at once, its pages read where the window shows them. Results
 * of works deleted with an Undo still on offer are gone from the grid and the count.
 */
function useLibraryList(kind: Kind, apiQuery: string, setNotice: (notice: string) => void) {
  const read = useCallback(
    (_seq: number, page: number) =>
      api.get<LibraryPageAnswer>(
        `/web/api/assets?page=${page}&limit=${PAGE_SIZE}${kind ? `&kind=${kind}` : ''}${apiQuery}`,
      ),
    [kind, apiQuery],
  );
  const list = usePagedList({ sequences: 1, pageSize: PAGE_SIZE, read });
  const { items, total, update } = list;
  /** An upload deleted (its card or the lightbox): it leaves the list. */
  const uploadGone = (id: string) => {
    update((a) => (a.id === id ? null : a));
    setNotice('Upload deleted');
  };
  // Deleting from the library deletes the works the selected results belong to (uploads have none).
  const deferred = useDeferredDelete(deleteWorks, (workIds) =>
    update((a) => (a.generationId !== null && workIds.includes(a.generationId) ? null : a)),
  );
  const shown = useCallback(
    (a: LibraryAsset | Placeholder) =>
      isPlaceholder(a) || a.generationId === null || !deferred.hidden.has(a.generationId),
    [deferred.hidden],
  );
  const visible = useMemo(() => items.filter(shown), [items, shown]);
  const slots = useMemo(() => list.slots.filter(shown), [list.slots, shown]);
  const shownTotal = total === undefined ? total : Math.max(0, total - (items.length - visible.length));
  return { list, deferred, visible, slots, shownTotal, uploadGone };
}

/** The heading and count, the kind filter and the search. */
function LibraryHeader({
  total,
  kind,
  query,
  go,
}: {
  total: number | undefined;
  kind: Kind;
  query: SearchState;
  go: (next: { kind?: Kind; search?: SearchState }) => void;
}) {
  return (
    <>
      <header className="page-header">
        <h1 className="page-title" tabIndex={-1}>
          Library
        </h1>
        {total !== undefined && <p className="muted">{total === 1 ? '1 image' : `${total} images`}</p>}
      </header>
      <ChoiceGroup
        legend="Show"
        name="kind"
        value={kind}
        onChange={(value) => go({ kind: value as Kind })}
        choices={[
          { value: '', label: 'All' },
          { value: 'upload', label: 'Uploads' },
          { value: 'result', label: 'Results' },
        ]}
      />
      <SearchBar label="Search the library" value={query} onChange={(next) => go({ search: next })} />
    </>
  );
}

/** Nothing to show: nothing matches, or nothing of the kind yet. */
function LibraryEmpty({ searching, kind }: { searching: boolean; kind: Kind }) {
  return (
    <div className="empty">
      <p>
        {searching
          ? 'Nothing matches this search.'
          : kind === 'upload'
            ? 'No uploads yet.'
            : kind === 'result'
              ? 'No results yet.'
              : 'Your library is empty.'}
      </p>
      <p className="muted small">Reference images you upload and every image you create land here.</p>
    </div>
  );
}

/** The lightbox over the library; Delete takes an upload out, or a result's whole work. */
function LibraryLightbox({
  assets,
  startKey,
  compareKeys,
  onClose,
}: {
  assets: ReturnType<typeof useLibraryList>;
  startKey: string;
  compareKeys: string[] | undefined;
  onClose: () => void;
}) {
  const { list, visible, uploadGone } = assets;
  return (
    <Lightbox
      items={itemsOfAssets(visible)}
      startKey={startKey}
      compareKeys={compareKeys}
      onClose={onClose}
      total={list.total}
      hasMore={list.hasMore}
      loading={list.loading}
      loadMore={list.loadNext}
      onDelete={async (item) => {
        if (item.kind === 'upload') {
          await deleteUpload(item.key);
          return uploadGone(item.key);
        }
        await api.delete(`/web/api/works/${encodeURIComponent(item.workId ?? '')}`);
        list.update((asset) => (asset.generationId === item.workId ? null : asset));
      }}
    />
  );
}

/** The density controls and the virtual grid of library cards. */
function LibraryGrid({
  slots,
  view,
  selection,
  list,
  onView,
  onDeleteUpload,
}: {
  slots: readonly (LibraryAsset | Placeholder)[];
  view: ReturnType<typeof useGalleryView>;
  selection: ReturnType<typeof useSelection>;
  list: ReturnType<typeof useLibraryList>['list'];
  onView: (asset: LibraryAsset) => void;
  onDeleteUpload: (asset: LibraryAsset) => void;
}) {
  return (
    <>
      <GridViewControls kind="library" />
      <VirtualGrid
        as="ul"
        kind="library"
        density={view.density}
        className={`library-grid density-${view.density}${selection.selected.size > 0 ? ' selecting' : ''}`}
        items={slots}
        itemKey={assetKey}
        groupOf={view.byDay ? assetDay : undefined}
        estimateHeight={estimateAsset}
        placeholderHeight={placeholderAsset}
        onRange={list.ensure}
        listId={list.listId}
        render={(asset) => (
          <LibraryCard
            asset={asset}
            selected={selection.selected.has(asset.id)}
            toggle={selection.toggle}
            onView={onView}
            onDeleteUpload={onDeleteUpload}
          />
        )}
      />
    </>
  );
}
