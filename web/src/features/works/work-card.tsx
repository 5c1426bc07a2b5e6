import { memo } from 'react';
import { cssAspect, downloadName, formatDate, formatWhen, MODE_LABELS } from '../../lib/format';
import { shortText } from '../../lib/text';
import type { SavedWork } from '../../lib/types';
import { CopyButton } from '../../ui/copy-button';
import { DownloadIcon, ExpandIcon, ImageIcon, ReuseIcon, TrashIcon } from '../../ui/icons';
import { Thumbnail } from '../../ui/thumbnail';
import { SelectCheckbox } from '../curation/select-checkbox';
import type { Selection } from '../curation/selection';
import { StarButton } from '../curation/star-button';
import { ActionMenu } from '../lightbox/action-menu';
import { reuseSettings } from '../lightbox/item-actions';
import { settingsOfWork } from '../lightbox/lightbox-items';

export const images = (work: SavedWork) => work.tasks.filter((t) => t.status === 'completed' && t.imageUrl);

/**
 * A work of the gallery: its select box, cover image, prompt, settings, date and its actions (the
 * star among them). Memoised: its props are the work, whether it is selected and callbacks that stay
 * the same, so a page of works arriving or another card selected leaves the cards drawn alone.
 */
export const WorkCard = memo(function WorkCard({
  work,
  onOpen,
  onDelete,
  onStar,
  selected,
  toggle,
}: {
  work: SavedWork;
  onOpen: (work: SavedWork) => void;
  onDelete: (work: SavedWork) => void;
  onStar: (id: string, starred: boolean) => void;
  selected: boolean;
  toggle: Selection['toggle'];
}) {
  const done = images(work);
  const cover = done[0];
  const failed = work.tasks.filter((t) => t.status === 'failed').length;
  const pending = work.tasks.length - done.length - failed;
  return (
    // Draggable onto a collection of the sidebar (features/curation/collections-sidebar.tsx).
    <article className="work-card" aria-label={shortText(work.prompt)} data-work-id={work.id} draggable>
      <SelectCheckbox id={work.id} label={shortText(work.prompt)} selected={selected} toggle={toggle} />
      <button
        type="button"
        className="work-cover image-button"
        onClick={() => onOpen(work)}
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
          {cover?.imageUrl && <ActionMenu targetId={work.id} name={shortText(work.prompt)} />}
          <span className="icon-actions">
            <StarButton
              workId={work.id}
              starred={work.starred ?? false}
              onChange={(starred) => onStar(work.id, starred)}
            />
            <button
              type="button"
              className="icon-button"
              onClick={() => onOpen(work)}
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
              onClick={() => onDelete(work)}
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
});
