import { useCallback, useEffect, useRef, useState } from 'react';
import { CopyButton } from '../components/copy-button';
import { ConfirmDialog, Dialog } from '../components/dialog';
import { DownloadIcon, ExpandIcon, ImageIcon, ReuseIcon, TrashIcon } from '../components/icons';
import { SearchBar } from '../components/search-bar';
import { Thumbnail } from '../components/thumbnail';
import { api, messageOf } from '../lib/api';
import { draftStore } from '../lib/draft';
import { cssAspect, downloadName, formatDate, formatWhen, MODE_LABELS } from '../lib/format';
import { navigate, useLocation } from '../lib/router';
import { isSearching, searchFromUrl, searchToApi, searchToUrl } from '../lib/search';
import { shortText } from '../lib/text';
import type { Mode, SavedWork, SavedWorksPage } from '../lib/types';

const PAGE_SIZE = 24;

/** Fills the Create form with a work's settings (and references), then goes there. */
function reuseSettings(work: SavedWork) {
  draftStore.set((draft) => ({
    ...draft,
    prompt: work.prompt,
    model: work.model,
    mode: work.mode as Mode,
    aspect: work.aspect,
    imageSize: work.imageSize,
    count: work.imageCount,
    references: work.refs.map((url, i) => ({ url, name: `Reference ${i + 1}` })),
  }));
  navigate('/');
}

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
        aria-label={`Open: ${shortText(work.prompt)}`}
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
          <button type="button" className="button small" onClick={() => reuseSettings(work)}>
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

/** A work, large: every image, the full prompt and parameters. */
function WorkDialog({
  work,
  onClose,
  onDelete,
}: {
  work: SavedWork;
  onClose: () => void;
  onDelete: () => void;
}) {
  const done = images(work);
  return (
    <Dialog title="Saved work" onClose={onClose} wide>
      <div className="work-detail">
        <div className={done.length > 1 ? 'detail-images multi' : 'detail-images'}>
          {done.length === 0 && (
            <p className="muted">
              No image yet{work.tasks.some((t) => t.status === 'failed') ? ': the task failed.' : '.'}
            </p>
          )}
          {done.map((task) => (
            <figure key={task.task_id}>
              <img
                src={task.imageUrl}
                alt={work.prompt}
                className="viewer-image"
                width={task.width}
                height={task.height}
              />
              <figcaption className="row between">
                <span className="muted small">
                  {task.width && task.height ? `${task.width} × ${task.height}` : ''}
                </span>
                <a
                  className="button small"
                  href={task.imageUrl}
                  download={downloadName(work.prompt, task.task_id, task.imageUrl ?? '')}
                >
                  <DownloadIcon /> Download
                </a>
              </figcaption>
            </figure>
          ))}
          {work.tasks
            .filter((t) => t.status === 'failed')
            .map((t) => (
              <p key={t.task_id} className="error-text">
                Image {work.tasks.indexOf(t) + 1}: {t.error}
              </p>
            ))}
        </div>
        <div className="stack">
          <blockquote className="detail-prompt">{work.prompt}</blockquote>
          <dl className="params">
            <dt>Model</dt>
            <dd>{work.model}</dd>
            <dt>Mode</dt>
            <dd>{MODE_LABELS[work.mode] ?? work.mode}</dd>
            <dt>Aspect</dt>
            <dd>{work.aspect}</dd>
            <dt>Size</dt>
            <dd>{work.imageSize}</dd>
            <dt>Images</dt>
            <dd>{work.imageCount}</dd>
            <dt>Submitted</dt>
            <dd>
              {formatDate(work.createdAt)} via {work.source === 'api' ? 'the API' : 'the website'}
            </dd>
          </dl>
          {work.refs.length > 0 && (
            <div>
              <h3 className="field-label">References</h3>
              <ul className="ref-list">
                {work.refs.map((url, i) => (
                  <li key={url} className="ref">
                    <Thumbnail src={url} sizes="96px" alt={`Reference ${i + 1}`} />
                  </li>
                ))}
              </ul>
            </div>
          )}
          <div className="row wrap tight">
            <button type="button" className="button primary" onClick={() => reuseSettings(work)}>
              <ReuseIcon /> Reuse settings
            </button>
            <CopyButton text={work.prompt} label="Copy prompt" />
            <button type="button" className="button ghost danger-text" onClick={onDelete}>
              <TrashIcon /> Delete
            </button>
          </div>
        </div>
      </div>
    </Dialog>
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

  const confirmDelete = async () => {
    if (!deleting) return;
    setDeleteState({ busy: true });
    try {
      await api.delete(`/web/api/works/${encodeURIComponent(deleting.id)}`);
      const index = works.findIndex((w) => w.id === deleting.id);
      setFocusAfter((works[index + 1] ?? works[index - 1])?.id ?? '');
      setWorks((list) => list.filter((w) => w.id !== deleting.id));
      setTotal((n) => (n === undefined ? n : n - 1));
      setNotice('Work deleted');
      if (open?.id === deleting.id) setOpen(undefined);
      setDeleting(undefined);
      setDeleteState({ busy: false });
    } catch (failure) {
      setDeleteState({ busy: false, error: messageOf(failure) });
    }
  };

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
        <WorkDialog work={open} onClose={() => setOpen(undefined)} onDelete={() => setDeleting(open)} />
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
