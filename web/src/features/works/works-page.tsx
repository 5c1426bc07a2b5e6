import { type RefObject, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, messageOf } from '../../lib/api';
import { navigate, useLocation } from '../../lib/router';
import type { SavedWork, SavedWorksPage } from '../../lib/types';
import { useLinkedWork, useListAfterLink } from '../../lib/work-link';
import { useGalleryView, useStarredFirst } from '../../ui/grid/grid-view';
import { GridViewControls } from '../../ui/grid/grid-view-controls';
import { usePagedList } from '../../ui/grid/paged-list';
import { VirtualGrid } from '../../ui/grid/virtual-grid';
import { coverHeight, dayHeading, isPlaceholder, type Placeholder } from '../../ui/grid/virtual-rows';
import { LoadMore } from '../../ui/load-more';
import { CollectionsSidebar } from '../curation/collections-sidebar';
import { deleteWorks, useCollections } from '../curation/curation';
import {
  type CurationFilter,
  CurationFilters,
  curationFromUrl,
  curationToApi,
  curationToUrl,
} from '../curation/curation-filters';
import { useDeferredDelete } from '../curation/deferred-delete';
import { isSearching, type SearchState, searchFromUrl, searchToApi, searchToUrl } from '../curation/search';
import { SearchBar } from '../curation/search-bar';
import { useSelection } from '../curation/selection';
import { SelectionBarWithUndo } from '../curation/selection-bar';
import { useCompareSelection } from '../lightbox/compare-selection';
import { Lightbox } from '../lightbox/lightbox';
import { itemsOfWorks, type LightboxItem } from '../lightbox/lightbox-items';
import { WorkCard } from './work-card';
import { DeleteWorkDialog, LightboxStar, WorksEmpty, WorksHeader } from './works-parts';

const PAGE_SIZE = 24;

const workKey = (work: SavedWork) => work.id;
/** A card's height before it is measured: its cover at the work's aspect ratio (at most 420 px) and its text. */
const estimateWork = (work: SavedWork, columnWidth: number) =>
  coverHeight(work.aspect, columnWidth, 420) + 150;
/** A card of a page not read yet: a square cover and the text. */
const placeholderWork = (columnWidth: number) => Math.min(420, columnWidth) + 150;
/** Stars first: the sequence of all works (the second) leaves out the starred ones, shown before it. */
const keepUnpinned = (work: SavedWork, seq: number) => seq === 0 || !work.starred;

/** Saved works: the account's generations, newest first, searchable (the query in the URL), loaded as the person scrolls. */
export default function WorksPage() {
  const { search } = useLocation();
  const query = searchFromUrl(search);
  const curation = curationFromUrl(search);
  const filtered = isSearching(query) || curation.starred || curation.collection !== '';
  const view = useGalleryView('works');
  // Starred works pinned first: their pages load first, then the whole list (those shown are skipped).
  const pinning = useStarredFirst()[0] && !curation.starred;
  const [open, setOpen] = useState<SavedWork>();
  const [notice, setNotice] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  const collections = useCollections();
  const linked = useOpenLinkedWork(search.get('work'), setOpen, query, curation);
  const works = useWorksList(
    searchToApi(query) + curationToApi(curation),
    pinning,
    linked.listReady,
    collections,
  );
  const { list, visible, setStarred } = works;
  const removal = useWorkDelete(list.items, list.update, setNotice, heading);
  const selection = useSelection(visible.map((w) => w.id));
  /** The selection bar's Compare: the images the lightbox opens compared. */
  const compare = useCompareSelection(itemsOfWorks, setNotice);
  const groupOf = useCallback(
    (work: SavedWork) => (pinning && work.starred ? 'Starred' : dayHeading(work.createdAt)),
    [pinning],
  );
  // The lightbox walks the list; a linked work not (yet) in it goes first.
  const walked = open && !visible.some((w) => w.id === open.id) ? [open, ...visible] : visible;

  return (
    <div className="page">
      <WorksHeader heading={heading} total={works.shownTotal} notice={notice} />
      <CollectionsSidebar
        collections={collections}
        selection={selection}
        works={visible}
        query={query}
        curation={curation}
        onStarred={works.starMany}
      />
      <WorksFilters query={query} curation={curation} collections={collections} />
      {list.total === 0 && !list.loading && <WorksEmpty filtered={filtered} />}
      <WorksGrid
        slots={works.slots}
        view={view}
        groupOf={view.byDay || pinning ? groupOf : undefined}
        selection={selection}
        list={list}
        onOpen={setOpen}
        onDelete={removal.setDeleting}
        onStar={setStarred}
      />
      <SelectionBarWithUndo
        selection={selection}
        zip={{ works: [...selection.selected] }}
        workIds={[...selection.selected]}
        collections={collections}
        onNotice={setNotice}
        deferred={works.deferred}
        onCompare={() => {
          const first = compare.start(visible.filter((w) => selection.selected.has(w.id)));
          if (first) setOpen(first);
        }}
      />
      {linked.linkError && (
        <p className="error-text" role="alert">
          {linked.linkError}
        </p>
      )}
      <LoadMore
        sentinel={sentinel}
        more={list.hasMore}
        loading={list.loading}
        error={list.error}
        onLoadMore={list.error ? list.retry : list.loadNext}
      />
      {open && (
        <WorksLightbox
          works={walked}
          open={open}
          compare={compare}
          onClose={() => {
            setOpen(undefined);
            compare.stop();
          }}
          list={list}
          onDelete={(item) => removal.removeWork(item.workId ?? '')}
          onStar={setStarred}
        />
      )}
      {removal.deleting && <DeleteWorkDialog removal={removal} />}
    </div>
  );
}

/**
 * A work's own link (`/works?work=<id>`, the lightbox's "Open the work"): the work is read by id and
 * opened, listed or not; then `work` leaves the URL (closing does not reopen it). The
 * list loads once its image has (see useListAfterLink).
 */
function useOpenLinkedWork(
  linked: string | null,
  open: (work: SavedWork) => void,
  query: SearchState,
  curation: CurationFilter,
) {
  const [linkedAtStart] = useState(linked !== null);
  const { work: linkedWork, error: linkedError } = useLinkedWork(linked);
  const listReady = useListAfterLink(linkedAtStart, linkedWork, linkedError);
  /** Why a work's link could not open (kept apart: the list loading after it clears its own error). */
  const [linkError, setLinkError] = useState<string>();
  useEffect(() => {
    if (!linkedWork && !linkedError) return;
    if (linkedWork) open(linkedWork);
    if (linkedError) setLinkError(linkedError);
    navigate(`/works${searchToUrl(query, curationToUrl(curation))}`, { replace: true });
  }, [linkedWork, linkedError, query, curation, open]);
  return { listReady, linkError };
}

/**
 * The whole list's height at once, its pages read where the window shows them; stars first: the
 * starred works' pages (`starred=true`), then all works' without them. Works deleted with an Undo
 * still on offer are gone from the grid and the count.
 */
function useWorksList(
  apiQuery: string,
  pinning: boolean,
  ready: boolean,
  collections: ReturnType<typeof useCollections>,
) {
  const read = useCallback(
    (seq: number, page: number) =>
      api.get<SavedWorksPage>(
        `/web/api/works?page=${page}&limit=${PAGE_SIZE}${apiQuery}${pinning && seq === 0 ? '&starred=true' : ''}`,
      ),
    [apiQuery, pinning],
  );
  const list = usePagedList({
    sequences: pinning ? 2 : 1,
    pageSize: PAGE_SIZE,
    read,
    keep: pinning ? keepUnpinned : undefined,
    ready,
  });
  const { items: works, total } = list;
  const deferred = useDeferredDelete(deleteWorks, (ids) => {
    list.update((w) => (ids.includes(w.id) ? null : w));
    void collections.reload();
  });
  const visible = useMemo(() => works.filter((w) => !deferred.hidden.has(w.id)), [works, deferred.hidden]);
  const slots = useMemo(
    () => list.slots.filter((w) => isPlaceholder(w) || !deferred.hidden.has(w.id)),
    [list.slots, deferred.hidden],
  );
  const shownTotal = total === undefined ? total : Math.max(0, total - (works.length - visible.length));
  /** Works starred or unstarred (a card's star; a drop on the sidebar's Starred, its Undo). */
  const { update } = list;
  const starMany = useCallback(
    (ids: string[], starred: boolean) => update((w) => (ids.includes(w.id) ? { ...w, starred } : w)),
    [update],
  );
  const setStarred = useCallback((id: string, starred: boolean) => starMany([id], starred), [starMany]);
  return { list, deferred, visible, slots, shownTotal, starMany, setStarred };
}

/**
 * Deleting one work: the confirmation (a card's bin), the delete, and focus after it — the next
 * work's cover, or the heading when no work is left, instead of falling to <body>.
 */
function useWorkDelete(
  works: readonly SavedWork[],
  update: (change: (work: SavedWork) => SavedWork | null) => void,
  setNotice: (notice: string) => void,
  heading: RefObject<HTMLHeadingElement | null>,
) {
  const [deleting, setDeleting] = useState<SavedWork>();
  const [deleteState, setDeleteState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  /** After a delete, where focus goes: the id of the work that took its place, or '' for the heading. */
  const [focusAfter, setFocusAfter] = useState<string>();
  /** Deletes a work and takes it out of the list (the lightbox's Delete, after its confirmation). */
  const removeWork = async (id: string) => {
    await api.delete(`/web/api/works/${encodeURIComponent(id)}`);
    update((w) => (w.id === id ? null : w));
    setNotice('Work deleted');
  };
  const confirmDelete = async () => {
    if (!deleting) return;
    setDeleteState({ busy: true });
    try {
      await removeWork(deleting.id);
      const index = works.findIndex((w) => w.id === deleting.id);
      setFocusAfter((works[index + 1] ?? works[index - 1])?.id ?? '');
      setDeleting(undefined);
      setDeleteState({ busy: false });
    } catch (failure) {
      setDeleteState({ busy: false, error: messageOf(failure) });
    }
  };
  const cancel = () => {
    setDeleting(undefined);
    setDeleteState({ busy: false });
  };
  useEffect(() => {
    if (focusAfter === undefined) return;
    const cover = focusAfter
      ? document.querySelector<HTMLElement>(`[data-work-id="${CSS.escape(focusAfter)}"] .work-cover`)
      : null;
    (cover ?? heading.current)?.focus();
    setFocusAfter(undefined);
  }, [focusAfter, heading]);
  return { deleting, setDeleting, deleteState, removeWork, confirmDelete, cancel };
}

/** The search bar and the star and collection filters, kept in the URL. */
function WorksFilters({
  query,
  curation,
  collections,
}: {
  query: SearchState;
  curation: CurationFilter;
  collections: ReturnType<typeof useCollections>;
}) {
  return (
    <>
      <SearchBar
        label="Search saved works"
        value={query}
        onChange={(next) =>
          navigate(`/works${searchToUrl(next, curationToUrl(curation))}`, { replace: true })
        }
      />
      <CurationFilters
        value={curation}
        collections={collections}
        onChange={(next) => navigate(`/works${searchToUrl(query, curationToUrl(next))}`, { replace: true })}
      />
    </>
  );
}

type WorksList = ReturnType<typeof useWorksList>['list'];

/** The density controls and the virtual grid of work cards. */
function WorksGrid({
  slots,
  view,
  groupOf,
  selection,
  list,
  onOpen,
  onDelete,
  onStar,
}: {
  slots: readonly (SavedWork | Placeholder)[];
  view: ReturnType<typeof useGalleryView>;
  groupOf: ((work: SavedWork) => string) | undefined;
  selection: ReturnType<typeof useSelection>;
  list: WorksList;
  onOpen: (work: SavedWork) => void;
  onDelete: (work: SavedWork) => void;
  onStar: (id: string, starred: boolean) => void;
}) {
  return (
    <>
      <GridViewControls kind="works" />
      <VirtualGrid
        kind="works"
        density={view.density}
        className={`works-grid density-${view.density}${selection.selected.size > 0 ? ' selecting' : ''}`}
        items={slots}
        itemKey={workKey}
        groupOf={groupOf}
        estimateHeight={estimateWork}
        placeholderHeight={placeholderWork}
        onRange={list.ensure}
        listId={list.listId}
        render={(work) => (
          <WorkCard
            work={work}
            selected={selection.selected.has(work.id)}
            toggle={selection.toggle}
            onOpen={onOpen}
            onDelete={onDelete}
            onStar={onStar}
          />
        )}
      />
    </>
  );
}

/** The lightbox over the works (opened compared from the selection bar's Compare), with each work's star. */
function WorksLightbox({
  works,
  open,
  compare,
  onClose,
  list,
  onDelete,
  onStar,
}: {
  works: SavedWork[];
  open: SavedWork;
  compare: { keys: string[] | undefined };
  onClose: () => void;
  list: WorksList;
  onDelete: (item: LightboxItem) => Promise<void>;
  onStar: (id: string, starred: boolean) => void;
}) {
  return (
    <Lightbox
      items={itemsOfWorks(works)}
      startKey={compare.keys?.[0] ?? itemsOfWorks([open])[0]?.key ?? open.id}
      compareKeys={compare.keys}
      onClose={onClose}
      hasMore={list.hasMore}
      loading={list.loading}
      loadMore={list.loadNext}
      onDelete={onDelete}
      actions={(item) => (
        <LightboxStar work={list.items.find((w) => w.id === item.workId)} onChange={onStar} />
      )}
    />
  );
}
