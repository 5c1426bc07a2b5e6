import { useCallback, useEffect, useRef, useState } from 'react';
import { CopyButton } from '../components/copy-button';
import { ConfirmDialog } from '../components/dialog';
import { DownloadIcon, ExpandIcon, ImageIcon, ReuseIcon, TrashIcon } from '../components/icons';
import { Lightbox } from '../components/lightbox/lightbox';
import { SearchBar } from '../components/search-bar';
import { Thumbnail } from '../components/thumbnail';
import { api, messageOf } from '../lib/api';
import { cssAspect, downloadName, formatDate, formatWhen, MODE_LABELS } from '../lib/format';
import { itemsOfWorks, reuseSettings, settingsOfWork } from '../lib/lightbox-items';
import { navigate, useLocation } from '../lib/router';
import { isSearching, searchFromUrl, searchToApi, searchToUrl } from '../lib/search';
import { shortText } from '../lib/text';
import type { SavedWork, SavedWorksPage } from '../lib/types';

const PAGE_SIZE = 24;

const images = (work: SavedWork) => work.tasks.filter((t) => t.status === 'completed' && t.imageUrl);

/** A work of the gallery: cover image, prompt, settings, date and its actions. */
function WorkCard({ work, onOpen, onDelete }: { work: SavedWork; onOpen: () => void; onDelete: () => void }) {
  const done = images(work);
  const cover = done[0];
  const failed = work.tasks.filter((t) => t.status === 'failed').length;
  const pending = work.tasks.length - done.length - failed;
  return (
    <article className="work-card" aria-label={shortText(work.prompt)} data-work-id={work.id}>
      <button
        type="button"
        className="work-cover image-button"
        onClick={onOpen}
        style={{ aspectRatio: cssAspect(work.aspect) }}
        // The count the cover shows is part of its name (WCAG 2.5.3, label in name).
        aria-label={`Open: ${shortText(work.prompt)}${work.tasks.length > 1 ? `, ${done.length}/${work.tasks.length} images` : ''}`}
      >
        {cover?.imageUrl ? (
          <Thumbnail
            src={cover.imageUrl}
            sizes="(max-width: 640px) 100vw, 320px"
            alt={work.prompt}
            loading="lazy"
            decoding="async"
            width={cover.width}
            height={cover.height}
          />
        ) : (
          <span className={pending > 0 ? 'placeholder shimmer' : 'placeholder failed'}>
            <ImageIcon />
          </span>
        )}
        {work.tasks.length > 1 && (
          <span className="cover-count">
            {done.length}/{work.tasks.length}
          </span>
        )}
      </button>
      <div className="work-body">
        <p className="work-prompt">{work.prompt}</p>
        <p className="task-meta">
          {work.model} · {MODE_LABELS[work.mode] ?? work.mode} · {work.aspect} · {work.imageSize}
          {work.imageCount > 1 ? ` · ${work.imageCount} images` : ''}
        </p>
        <p className="task-meta">
          <time dateTime={new Date(work.createdAt).toISOString()} title={formatDate(work.createdAt)}>
            {formatWhen(work.createdAt)}
          </time>
          {work.source === 'api' && <span className="badge source-api">API</span>}
          {pending > 0 && <span className="muted"> · {pending} rendering</span>}
          {failed > 0 && <span className="error-inline"> · {failed} failed</span>}
        </p>
        <div className="card-actions">
          <button type="button" className="button small" onClick={() => reuseSettings(settingsOfWork(work))}>
            <ReuseIcon /> Reuse settings
          </button>
          <span className="icon-actions">
            <button
              type="button"
              className="icon-button"
              onClick={onOpen}
              aria-label="Open"
              title="Open large"
            >
              <ExpandIcon />
            </button>
            {cover?.imageUrl && (
              <a
                className="icon-button"
                href={cover.imageUrl}
                download={downloadName(work.prompt, cover.task_id, cover.imageUrl)}
                aria-label="Download"
                title="Download"
              >
                <DownloadIcon />
              </a>
            )}
            <CopyButton text={work.prompt} label="Copy prompt" iconOnly />
            <button
              type="button"
              className="icon-button danger-text"
              onClick={onDelete}
              aria-label={`Delete: ${shortText(work.prompt)}`}
              title="Delete"
            >
              <TrashIcon />
            </button>
          </span>
        </div>
      </div>
    </article>
  );
}

/** Saved works: the account's generations, newest first, searchable (the query in the URL), loaded as the person scrolls. */
export default function WorksPage() {
  const { search } = useLocation();
  const query = searchFromUrl(search);
  const apiQuery = searchToApi(query);
  const [works, setWorks] = useState<SavedWork[]>([]);
  const [total, setTotal] = useState<number>();
  const [page, setPage] = useState(0);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  const [open, setOpen] = useState<SavedWork>();
  const [deleting, setDeleting] = useState<SavedWork>();
  const [deleteState, setDeleteState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const [notice, setNotice] = useState('');
  /** After a delete, where focus goes: the id of the work that took its place, or '' for the heading. */
  const [focusAfter, setFocusAfter] = useState<string>();
  const heading = useRef<HTMLHeadingElement>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  /** Bumped when the search changes: answers to an older search are dropped. */
  const generation = useRef(0);
  const hasMore = total === undefined || works.length < total;
  const linked = search.get('work');

  const load = useCallback(
    async (next: number, replace: boolean) => {
      const mine = replace ? ++generation.current : generation.current;
      setLoading(true);
      setError(undefined);
      try {
        const result = await api.get<SavedWorksPage>(
          `/web/api/works?page=${next}&limit=${PAGE_SIZE}${apiQuery}`,
        );
        if (mine !== generation.current) return;
        setWorks((list) => {
          if (replace) return result.items;
          const known = new Set(list.map((w) => w.id));
          return [...list, ...result.items.filter((w) => !known.has(w.id))];
        });
        setTotal(result.total);
        setPage(next);
      } catch (failure) {
        if (mine === generation.current) setError(messageOf(failure));
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [apiQuery],
  );

  useEffect(() => {
    void load(1, true);
  }, [load]);

  const loadMore = useCallback(() => {
    if (!loading && hasMore && page > 0) void load(page + 1, false);
  }, [loading, hasMore, page, load]);

  // Infinite scroll: the next page loads when the end of the list comes into view.
  useEffect(() => {
    const element = sentinel.current;
    if (!element || !hasMore || error) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) void loadMore();
      },
      { rootMargin: '600px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [loadMore, hasMore, error]);

  /** Deletes a work and takes it out of the list (the lightbox's Delete, after its confirmation). */
  const removeWork = async (id: string) => {
    await api.delete(`/web/api/works/${encodeURIComponent(id)}`);
    setWorks((list) => list.filter((w) => w.id !== id));
    setTotal((n) => (n === undefined ? n : n - 1));
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

  // A link to a work (the lightbox's "Open the work"): open it once listed, then drop it from the URL.
  useEffect(() => {
    const work = linked ? works.find((w) => w.id === linked) : undefined;
    if (!work) return;
    setOpen(work);
    navigate(`/works${searchToUrl(query)}`, { replace: true });
  }, [linked, works, query]);

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
        {total !== undefined && <p className="muted">{total === 1 ? '1 work' : `${total} works`}</p>}
      </header>
      <p className="visually-hidden" aria-live="polite">
        {notice}
      </p>
      <SearchBar
        label="Search saved works"
        value={query}
        onChange={(next) => navigate(`/works${searchToUrl(next)}`, { replace: true })}
      />
      {total === 0 && !loading && isSearching(query) && (
        <div className="empty">
          <p>No saved work matches this search.</p>
        </div>
      )}
      {total === 0 && !loading && !isSearching(query) && (
        <div className="empty">
          <p>Nothing saved yet.</p>
          <p className="muted small">
            Everything you create — here or through the API — is saved automatically.
          </p>
        </div>
      )}
      <div className="works-grid">
        {works.map((work) => (
          <WorkCard
            key={work.id}
            work={work}
            onOpen={() => setOpen(work)}
            onDelete={() => setDeleting(work)}
          />
        ))}
      </div>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {hasMore && (
        <div ref={sentinel} className="load-more">
          <button type="button" className="button" onClick={loadMore} disabled={loading}>
            {loading ? 'Loading…' : error ? 'Try again' : 'Load more'}
          </button>
        </div>
      )}
      {open && (
        <Lightbox
          items={itemsOfWorks(works)}
          startKey={itemsOfWorks([open])[0]?.key ?? open.id}
          onClose={() => setOpen(undefined)}
          hasMore={hasMore}
          loading={loading}
          loadMore={loadMore}
          onDelete={(item) => removeWork(item.workId ?? '')}
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
