import { useCallback, useEffect, useRef, useState } from 'react';
import type { AssetKind } from '../../../src/domain/asset-kinds';
import { ChoiceGroup } from '../components/choice-group';
import { SelectionBarWithUndo } from '../components/curation/selection-bar';
import { GridViewControls } from '../components/grid-view-controls';
import { LibraryCard } from '../components/library-card';
import { captionOf } from '../components/library-picker';
import { Lightbox } from '../components/lightbox/lightbox';
import { LoadMore } from '../components/load-more';
import { SearchBar } from '../components/search-bar';
import { deleteUpload, UploadDeleteDialog } from '../components/upload-delete';
import { VirtualGrid } from '../components/virtual-grid';
import { api, messageOf } from '../lib/api';
import { useCompareSelection } from '../lib/compare-selection';
import { deleteWorks, useCollections } from '../lib/curation';
import { useDeferredDelete } from '../lib/deferred-delete';
import { focusSoon } from '../lib/focus-soon';
import { useGalleryView } from '../lib/grid-view';
import { useInfiniteScroll } from '../lib/infinite-scroll';
import { itemsOfAssets } from '../lib/lightbox-items';
import { navigate, useLocation } from '../lib/router';
import { isSearching, type SearchState, searchFromUrl, searchToApi, searchToUrl } from '../lib/search';
import { useSelection } from '../lib/selection';
import type { LibraryAsset, LibraryPage as LibraryPageAnswer } from '../lib/types';
import { dayHeading } from '../lib/virtual-rows';

const PAGE_SIZE = 30;
type Kind = '' | AssetKind;

const assetKey = (asset: LibraryAsset) => asset.id;
const assetDay = (asset: LibraryAsset) => dayHeading(asset.createdAt);
/** A card's height before it is measured: a square thumbnail and three lines. */
const estimateAsset = (_asset: LibraryAsset, columnWidth: number) => columnWidth + 130;

/** The asset library: every uploaded reference and every result, searchable and filterable, the query in the URL. */
export default function LibraryPage() {
  const { search } = useLocation();
  const kindParam = search.get('kind');
  const kind: Kind = kindParam === 'upload' || kindParam === 'result' ? kindParam : '';
  const query = searchFromUrl(search);
  const apiQuery = searchToApi(query);
  const go = (next: { kind?: Kind; search?: SearchState }) =>
    navigate(`/library${searchToUrl(next.search ?? query, { kind: next.kind ?? kind })}`, { replace: true });
  const [items, setItems] = useState<LibraryAsset[]>([]);
  const [total, setTotal] = useState<number>();
  const [page, setPage] = useState(0);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  const [viewing, setViewing] = useState<LibraryAsset>();
  const [deletingUpload, setDeletingUpload] = useState<LibraryAsset>();
  const sentinel = useRef<HTMLDivElement>(null);
  /** An upload deleted (its card or the lightbox): it leaves the list. */
  const uploadGone = (id: string) => {
    setItems((list) => list.filter((a) => a.id !== id));
    setTotal((n) => (n === undefined ? n : n - 1));
    setNotice('Upload deleted');
  };
  const generation = useRef(0);
  const hasMore = total === undefined || items.length < total;
  const [notice, setNotice] = useState('');
  const collections = useCollections();
  const view = useGalleryView('library');
  // Deleting from the library deletes the works the selected results belong to (uploads have none).
  const deferred = useDeferredDelete(deleteWorks, (workIds) => {
    const gone = items.filter((a) => a.generationId !== null && workIds.includes(a.generationId)).length;
    setItems((list) => list.filter((a) => a.generationId === null || !workIds.includes(a.generationId)));
    setTotal((n) => (n === undefined ? n : n - gone));
  });
  const visible = items.filter((a) => a.generationId === null || !deferred.hidden.has(a.generationId));
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

  const load = useCallback(
    async (next: number, replace: boolean) => {
      const mine = ++generation.current;
      setLoading(true);
      setError(undefined);
      try {
        const result = await api.get<LibraryPageAnswer>(
          `/web/api/assets?page=${next}&limit=${PAGE_SIZE}${kind ? `&kind=${kind}` : ''}${apiQuery}`,
        );
        if (mine !== generation.current) return; // the filter changed meanwhile
        setItems((list) => {
          if (replace) return result.items;
          const known = new Set(list.map((a) => a.id));
          return [...list, ...result.items.filter((a) => !known.has(a.id))];
        });
        setTotal(result.total);
        setPage(next);
      } catch (failure) {
        if (mine === generation.current) setError(messageOf(failure));
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [kind, apiQuery],
  );

  useEffect(() => {
    void load(1, true);
  }, [load]);

  // Infinite scroll, like Saved works: the next page loads as the end of the list comes near.
  const loadMore = useCallback(() => {
    if (!loading && hasMore && page > 0) void load(page + 1, false);
  }, [loading, hasMore, page, load]);
  useInfiniteScroll(sentinel, loadMore, hasMore && !error && page > 0);

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
        items={visible}
        itemKey={assetKey}
        groupOf={view.byDay ? assetDay : undefined}
        estimateHeight={estimateAsset}
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
        more={hasMore && total !== undefined}
        loading={loading}
        error={error}
        onLoadMore={loadMore}
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
          loadMore={() => {
            if (!loading) void load(page + 1, false);
          }}
          onDelete={async (item) => {
            if (item.kind === 'upload') {
              await deleteUpload(item.key);
              return uploadGone(item.key);
            }
            await api.delete(`/web/api/works/${encodeURIComponent(item.workId ?? '')}`);
            setItems((list) => list.filter((asset) => asset.generationId !== item.workId));
            setTotal((n) =>
              n === undefined ? n : n - items.filter((a) => a.generationId === item.workId).length,
            );
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
