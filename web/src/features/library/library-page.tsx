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
  const apiQuery = searchToApi(query);
  const go = (next: { kind?: Kind; search?: SearchState }) =>
    navigate(`/library${searchToUrl(next.search ?? query, { kind: next.kind ?? kind })}`, { replace: true });
  // The whole list's height at once, its pages read where the window shows them.
  const read = useCallback(
    (_seq: number, page: number) =>
      api.get<LibraryPageAnswer>(
        `/web/api/assets?page=${page}&limit=${PAGE_SIZE}${kind ? `&kind=${kind}` : ''}${apiQuery}`,
      ),
    [kind, apiQuery],
  );
  const list = usePagedList({ sequences: 1, pageSize: PAGE_SIZE, read });
  const { items, total, loading, error, hasMore, update } = list;
  const [viewing, setViewing] = useState<LibraryAsset>();
  const [deletingUpload, setDeletingUpload] = useState<LibraryAsset>();
  const sentinel = useRef<HTMLDivElement>(null);
  /** An upload deleted (its card or the lightbox): it leaves the list. */
  const uploadGone = (id: string) => {
    update((a) => (a.id === id ? null : a));
    setNotice('Upload deleted');
  };
  const [notice, setNotice] = useState('');
  const collections = useCollections();
  const view = useGalleryView('library');
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
  // Results of works deleted with an Undo still on offer are gone from the count as from the grid.
  const shownTotal = total === undefined ? total : Math.max(0, total - (items.length - visible.length));
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
      <header className="page-header">
        <h1 className="page-title" tabIndex={-1}>
          Library
        </h1>
        {shownTotal !== undefined && (
          <p className="muted">{shownTotal === 1 ? '1 image' : `${shownTotal} images`}</p>
        )}
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
      {total === 0 && !loading && (
        <div className="empty">
          <p>
            {isSearching(query)
              ? 'Nothing matches this search.'
              : kind === 'upload'
                ? 'No uploads yet.'
                : kind === 'result'
                  ? 'No results yet.'
                  : 'Your library is empty.'}
          </p>
          <p className="muted small">Reference images you upload and every image you create land here.</p>
        </div>
      )}
      <p className="visually-hidden" aria-live="polite">
        {notice}
      </p>
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
            onView={setViewing}
            onDeleteUpload={setDeletingUpload}
          />
        )}
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
        more={hasMore}
        loading={loading}
        error={error}
        onLoadMore={error ? list.retry : list.loadNext}
      />
      {viewing && (
        <Lightbox
          items={itemsOfAssets(visible)}
          startKey={compare.keys?.[0] ?? viewing.id}
          compareKeys={compare.keys}
          onClose={() => {
            setViewing(undefined);
            compare.stop();
          }}
          total={total}
          hasMore={hasMore}
          loading={loading}
          loadMore={list.loadNext}
          onDelete={async (item) => {
            if (item.kind === 'upload') {
              await deleteUpload(item.key);
              return uploadGone(item.key);
            }
            await api.delete(`/web/api/works/${encodeURIComponent(item.workId ?? '')}`);
            update((asset) => (asset.generationId === item.workId ? null : asset));
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
            uploadGone(deletingUpload.id);
            setDeletingUpload(undefined);
            focusSoon(next ? `[data-asset-id="${CSS.escape(next.id)}"] .asset-thumb` : 'h1');
          }}
          onCancel={() => setDeletingUpload(undefined)}
        />
      )}
    </div>
  );
}
