import { memo } from 'react';
import { cssAspect, downloadName, waitingText } from '../lib/format';
import { shortText } from '../lib/text';
import type { TaskCard as Card } from '../lib/types';
import { DownloadIcon, ExpandIcon, ImageIcon } from './icons';
import { ProgressBar } from './progress';
import { Thumbnail } from './thumbnail';

const STATUS_TEXT: Record<string, string> = {
  queued: 'Queued',
  in_progress: 'Rendering',
  completed: 'Done',
  failed: 'Failed',
};

/** One task of the creation view: live status and progress, then its image. */
export const TaskCard = memo(function TaskCard({
  card,
  onOpen,
  onUseAsReference,
}: {
  card: Card;
  onOpen: (card: Card) => void;
  onUseAsReference: (card: Card) => void;
}) {
  const { status, progress } = card;
  const done = status === 'completed' && card.imageUrl;
  const position = card.count > 1 ? ` (${card.index + 1} of ${card.count})` : '';
  // Accessible names carry a short prompt, never the whole (up to 8,000 characters).
  const name = `${shortText(card.prompt)}${position}`;
  // A task parked for its upstream's capacity says so: it keeps its turn, and a rate limit never fails it.
  const waiting = card.waiting_for === 'upstream_capacity' && status === 'queued';
  const statusText = waiting
    ? waitingText(card)
    : status === 'in_progress'
      ? `Rendering ${progress}%`
      : (STATUS_TEXT[status] ?? status);

  return (
    <article
      className={`task-card status-${status}`}
      aria-label={`${name}: ${statusText}`}
      data-task-id={card.task_id}
    >
      <div className="task-visual" style={{ aspectRatio: cssAspect(card.aspect) }}>
        {done ? (
          <button
            type="button"
            className="image-button"
            onClick={() => onOpen(card)}
            aria-label={`Open image: ${name}`}
          >
            <Thumbnail
              src={card.imageUrl ?? ''}
              sizes="(max-width: 640px) 100vw, 320px"
              alt={card.prompt}
              width={card.width}
              height={card.height}
              loading="lazy"
              decoding="async"
            />
          </button>
        ) : (
          <div className={status === 'failed' ? 'placeholder failed' : 'placeholder shimmer'}>
            <ImageIcon />
          </div>
        )}
      </div>
      <div className="task-body">
        <div className="task-topline">
          <span
            className={`badge source-${card.source}`}
            title={card.source === 'api' ? 'Submitted through the API' : 'Submitted on this website'}
          >
            {card.source === 'api' ? 'API' : 'Web'}
          </span>
          <span className={`status-text status-${status}`}>{statusText}</span>
        </div>
        {!done && (
          <ProgressBar
            value={status === 'failed' ? 100 : progress}
            failed={status === 'failed'}
            label={`Progress: ${name}`}
          />
        )}
        <p className="task-prompt" title={card.prompt}>
          {card.prompt}
        </p>
        <p className="task-meta">
          {card.model} · {card.mode} · {card.aspect} · {card.imageSize}
          {position}
        </p>
        {status === 'failed' && (
          <p className="error-text" role="status">
            {card.error ?? 'The task failed'}
          </p>
        )}
        {done && card.imageUrl && (
          <div className="card-actions">
            <button type="button" className="button small" onClick={() => onUseAsReference(card)}>
              Use as reference
            </button>
            <span className="icon-actions">
              <button
                type="button"
                className="icon-button"
                onClick={() => onOpen(card)}
                aria-label="Open"
                title="Open large"
              >
                <ExpandIcon />
              </button>
              <a
                className="icon-button"
                href={card.imageUrl}
                download={downloadName(card.prompt, card.task_id, card.imageUrl)}
                aria-label="Download"
                title="Download"
              >
                <DownloadIcon />
              </a>
            </span>
          </div>
        )}
      </div>
    </article>
  );
});
