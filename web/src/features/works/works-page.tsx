import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, messageOf } from '../../lib/api';
import { navigate, useLocation } from '../../lib/router';
import type { SavedWork, SavedWorksPage } from '../../lib/types';
import { useLinkedWork, useListAfterLink } from '../../lib/work-link';
import { ConfirmDialog } from '../../ui/dialog';
import { useGalleryView, useStarredFirst } from '../../ui/grid/grid-view';
import { GridViewControls } from '../../ui/grid/grid-view-controls';
import { usePagedList } from '../../ui/grid/paged-list';
import { VirtualGrid } from '../../ui/grid/virtual-grid';
import { coverHeight, dayHeading, isPlaceholder } from '../../ui/grid/virtual-rows';
import { LoadMore } from '../../ui/load-more';
import { CollectionsSidebar } from '../curation/collections-sidebar';
import { deleteWorks, useCollections } from '../curation/curation';
import { CurationFilters, curationFromUrl, curationToApi, curationToUrl } from '../curation/curation-filters';
import { useDeferredDelete } from '../curation/deferred-delete';
import { isSearching, searchFromUrl, searchToApi, searchToUrl } from '../curation/search';
import { SearchBar } from '../curation/search-bar';
import { useSelection } from '../curation/selection';
import { SelectionBarWithUndo } from '../curation/selection-bar';
import { StarButton } from '../curation/star-button';
import { useCompareSelection } from '../lightbox/compare-selection';
import { Lightbox } from '../lightbox/lightbox';
import { itemsOfWorks } from '../lightbox/lightbox-items';
import { WorkCard } from './work-card';

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
  const apiQuery = searchToApi(query) + curationToApi(curation);
  const filtered = isSearching(query) || curation.starred || curation.collection !== '';
  const view = useGalleryView('works');
  // Starred works pinned first: their pages load first, then the whole list (those shown are skipped).
  const pinning = useStarredFirst()[0] && !curation.starred;
  const [open, setOpen] = useState<SavedWork>();
  const [deleting, setDeleting] = useState<SavedWork>();
  const [deleteState, setDeleteState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const [notice, setNotice] = useState('');
  /** After a delete, where focus goes: the id of the work that took its place, or '' for the heading. */
  const [focusAfter, setFocusAfter] = useState<string>();
  const heading = useRef<HTMLHeadingElement>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  const linked = search.get('work');
  const collections = useCollections();

  // A work's own link shows that work first: the list loads once its image has (see useListAfterLink).
  const [linkedAtStart] = useState(linked !== null);
  const { work: linkedWork, error: linkedError } = useLinkedWork(linked);
  const listReady = useListAfterLink(linkedAtStart, linkedWork, linkedError);
  /** Why a work's link could not open (kept apart: the list loading after it clears its own error). */
  const [linkError, setLinkError] = useState<string>();
  // The whole list's height at once, its pages read where the window shows them; stars first: the
  // starred works' pages (`starred=true`), then all works' without them.
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
    ready: listReady,
  });
  const { items: works, total, loading, error, hasMore, loadNext: loadMore } = list;
  const deferred = useDeferredDelete(deleteWorks, (ids) => {
    list.update((w) => (ids.includes(w.id) ? null : w));
    void collections.reload();
  });
  const visible = useMemo(() => works.filter((w) => !deferred.hidden.has(w.id)), [works, deferred.hidden]);
  const slots = useMemo(
    () => list.slots.filter((w) => isPlaceholder(w) || !deferred.hidden.has(w.id)),
    [list.slots, deferred.hidden],
  );
  // Works deleted with an Undo still on offer are gone from the count as from the grid.
  const shownTotal = total === undefined ? total : Math.max(0, total - (works.length - visible.length));
  const selection = useSelection(visible.map((w) => w.id));
  /** The selection bar's Compare: the images the lightbox opens compared. */
  const compare = useCompareSelection(itemsOfWorks, setNotice);
  /** Works starred or unstarred (a card's star; a drop on the sidebar's Starred, its Undo). */
  const { update } = list;
  const starMany = useCallback(
    (ids: string[], starred: boolean) => update((w) => (ids.includes(w.id) ? { ...w, starred } : w)),
    [update],
  );
  const setStarred = useCallback((id: string, starred: boolean) => starMany([id], starred), [starMany]);

  const groupOf = useCallback(
    (work: SavedWork) => (pinning && work.starred ? 'Starred' : dayHeading(work.createdAt)),
    [pinning],
  );

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

  // A work's own link (`/works?work=<id>`, the lightbox's "Open the work"): the work is read by id
  // and opened, listed or not; then `work` leaves the URL (closing does not reopen it).
  useEffect(() => {
    if (!linkedWork && !linkedError) return;
    if (linkedWork) setOpen(linkedWork);
    if (linkedError) setLinkError(linkedError);
    navigate(`/works${searchToUrl(query, curationToUrl(curation))}`, { replace: true });
  }, [linkedWork, linkedError, query, curation]);
  // The lightbox walks the list; a linked work not (yet) in it goes first.
  const walked = open && !visible.some((w) => w.id === open.id) ? [open, ...visible] : visible;

  // Once the deleted work's card (and the dialogs) are gone, focus goes to the next work's
  // cover, or to the heading when no work is left, instead of falling to <body>.
  useEffect(() => {
    if (focusAfter === undefined) return;
    const cover = focusAfter
      ? document.querySelector<HTMLElement>(`[data-work-id="${CSS.escape(focusAfter)}"] .work-cover`)
      : null;
    (cover ?? heading.current)?.focus();
    setFocusAfter(undefined);
  }, [focusAfter]);

  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title" ref={heading} tabIndex={-1}>
          Saved works
        </h1>
        {shownTotal !== undefined && (
          <p className="muted">{shownTotal === 1 ? '1 work' : `${shownTotal} works`}</p>
        )}
      </header>
      <p className="visually-hidden" aria-live="polite">
        {notice}
      </p>
      <CollectionsSidebar
        collections={collections}
        selection={selection}
        works={visible}
        query={query}
        curation={curation}
        onStarred={starMany}
      />
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
      {total === 0 && !loading && filtered && (
        <div className="empty">
          <p>No saved work matches this search.</p>
        </div>
      )}
      {total === 0 && !loading && !filtered && (
        <div className="empty">
          <p>Nothing saved yet.</p>
          <p className="muted small">
            Everything you create — here or through the API — is saved automatically.
          </p>
        </div>
      )}
      <GridViewControls kind="works" />
      <VirtualGrid
        kind="works"
        density={view.density}
        className={`works-grid density-${view.density}${selection.selected.size > 0 ? ' selecting' : ''}`}
        items={slots}
        itemKey={workKey}
        groupOf={view.byDay || pinning ? groupOf : undefined}
        estimateHeight={estimateWork}
        placeholderHeight={placeholderWork}
        onRange={list.ensure}
        listId={list.listId}
        render={(work) => (
          <WorkCard
            work={work}
            selected={selection.selected.has(work.id)}
            toggle={selection.toggle}
            onOpen={setOpen}
            onDelete={setDeleting}
            onStar={setStarred}
          />
        )}
      />
      <SelectionBarWithUndo
        selection={selection}
        zip={{ works: [...selection.selected] }}
        workIds={[...selection.selected]}
        collections={collections}
        onNotice={setNotice}
        deferred={deferred}
        onCompare={() => {
          const first = compare.start(visible.filter((w) => selection.selected.has(w.id)));
          if (first) setOpen(first);
        }}
      />
      {linkError && (
        <p className="error-text" role="alert">
          {linkError}
        </p>
      )}
      <LoadMore
        sentinel={sentinel}
        more={hasMore}
        loading={loading}
        error={error}
        onLoadMore={error ? list.retry : loadMore}
      />
      {open && (
        <Lightbox
          items={itemsOfWorks(walked)}
          startKey={compare.keys?.[0] ?? itemsOfWorks([open])[0]?.key ?? open.id}
          compareKeys={compare.keys}
          onClose={() => {
            setOpen(undefined);
            compare.stop();
          }}
          hasMore={hasMore}
          loading={loading}
          loadMore={loadMore}
          onDelete={(item) => removeWork(item.workId ?? '')}
          actions={(item) => {
            const work = works.find((w) => w.id === item.workId);
            return work ? (
              <StarButton
                workId={work.id}
                starred={work.starred ?? false}
                onChange={(starred) => setStarred(work.id, starred)}
                withText
              />
            ) : null;
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete this work?"
          message={
            <p>
              “{deleting.prompt.length > 120 ? `${deleting.prompt.slice(0, 120)}…` : deleting.prompt}” leaves
              your saved works and library. The API history keeps a record of it, marked removed.
            </p>
          }
          confirmLabel="Delete"
          danger
          busy={deleteState.busy}
          error={deleteState.error}
          onConfirm={confirmDelete}
          onCancel={() => {
            setDeleting(undefined);
            setDeleteState({ busy: false });
          }}
        />
      )}
    </div>
  );
}
