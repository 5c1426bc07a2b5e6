import { memo } from 'react';
import { cssAspect, downloadName, waitingText } from '../../lib/format';
import { usePreviewUrl } from '../../lib/previews';
import { shortText } from '../../lib/text';
import type { TaskCard as Card } from '../../lib/types';
import { useAction } from '../../lib/use-action';
import { isFinalStatus } from '../../lib/vocabulary';
import { DownloadIcon, ExpandIcon, ImageIcon } from '../../ui/icons';
import { ProgressBar } from '../../ui/progress';
import { Thumbnail } from '../../ui/thumbnail';
import { cancelBatch, reuseSettings, submitGenerate } from './batch-actions';
import { useBatchImageActions } from './batch-image-actions';
import { type Batch, isCancelled, requestOf } from './batches';
import { formatDuration, formatEstimate } from './create-text';
import './batch-card.css';

const STATUS_TEXT: Record<string, string> = {
  queued: 'Queued',
  in_progress: 'Rendering',
  completed: 'Done',
  failed: 'Failed',
};

/** One image of a batch: its thumbnail (a button that opens it), or where it stands. */
function BatchImage({ card, name, onOpen }: { card: Card; name: string; onOpen: (card: Card) => void }) {
  if (card.status === 'completed' && card.imageUrl) {
    return (
      <button
        type="button"
        className="image-button"
        onClick={() => onOpen(card)}
        aria-label={`Open image: ${name}`}
        data-task-id={card.task_id}
      >
        <Thumbnail
          src={card.imageUrl}
          sizes={card.count > 1 ? '(max-width: 640px) 50vw, 160px' : '(max-width: 640px) 100vw, 320px'}
          alt={card.prompt}
          width={card.width}
          height={card.height}
          loading="lazy"
          decoding="async"
        />
      </button>
    );
  }
  return <Unfinished card={card} name={name} />;
}

/** An image not made (yet): the live preview while it renders, else a placeholder saying where it stands. */
function Unfinished({ card, name }: { card: Card; name: string }) {
  const preview = usePreviewUrl(card.task_id);
  const failed = card.status === 'failed';
  const cancelled = isCancelled(card);
  if (preview && !isFinalStatus(card.status))
    return (
      <div className="placeholder live-preview" data-task-id={card.task_id}>
        <img
          src={preview}
          alt={`${name}: preview while rendering`}
          className="preview-image"
          loading="lazy"
          decoding="async"
        />
      </div>
    );
  const look = cancelled ? 'placeholder cancelled' : failed ? 'placeholder failed' : 'placeholder shimmer';
  return (
    <div
      className={look}
      role="img"
      aria-label={`${name}: ${cancelled ? 'Cancelled' : (STATUS_TEXT[card.status] ?? card.status)}`}
      data-task-id={card.task_id}
    >
      <ImageIcon />
    </div>
  );
}

/** What the batch is doing, with its elapsed time and the estimate while it runs. */
function statusOf(batch: Batch, now: number, estimate: number | undefined): string {
  const { cards, first, running, failed, cancelled, completed } = batch;
  if (running > 0) {
    const waiting = first.waiting_for === 'upstream_capacity' && first.status === 'queued';
    // A batch with images already done is rendering, even while its next ones wait their turn.
    const started = cards.some((c) => c.status !== 'queued');
    const rendering = cards.some((c) => c.status === 'in_progress');
    const progress = cards.length === 1 && rendering ? ` ${first.progress}%` : '';
    const parts = [waiting ? waitingText(first, now) : `${started ? 'Rendering' : 'Queued'}${progress}`];
    if (cards.length > 1 && cards.length !== running)
      parts.push(`${completed.length} of ${cards.length} done`);
    parts.push(formatDuration(now - first.createdAt));
    if (estimate !== undefined) parts.push(formatEstimate(estimate));
    return parts.join(' · ');
  }
  if (failed.length === 0 && cancelled.length === 0) return 'Done';
  if (completed.length === 0 && failed.length === 0)
    return cards.length === 1 ? 'Cancelled' : 'All cancelled';
  if (completed.length === 0 && cancelled.length === 0) return cards.length === 1 ? 'Failed' : 'All failed';
  return [
    `${completed.length} done`,
    ...(failed.length > 0 ? [`${failed.length} failed`] : []),
    ...(cancelled.length > 0 ? [`${cancelled.length} cancelled`] : []),
  ].join(', ');
}

/**
 * A batch on Create: one card for one generate request, its images in a grid (2×2 for four, side
 * by side for two), live status with elapsed time and the usual duration, and what a person does
 * next: cancel, re-run, reuse the settings, retry what failed, download.
 */
export const BatchCard = memo(function BatchCard({
  batch,
  now,
  estimate,
  onOpen,
  onUseAsReference,
  onSubmitted,
}: {
  batch: Batch;
  now: number;
  estimate: number | undefined;
  onOpen: (card: Card, refine?: boolean) => void;
  onUseAsReference: (card: Card) => void;
  onSubmitted: () => void;
}) {
  const { cards, first, running, failed, completed } = batch;
  const action = useAction();
  const imageActions = useBatchImageActions({ count: cards.length, onSubmitted });
  const name = shortText(first.prompt);
  const status = statusOf(batch, now, running > 0 ? estimate : undefined);
  const meanProgress =
    cards.reduce(
      (sum, c) => sum + (c.status === 'queued' ? c.progress : c.status === 'in_progress' ? c.progress : 100),
      0,
    ) / cards.length;
  const errors = [...new Set(failed.map((c) => c.error ?? 'The task failed'))];
  const state =
    running > 0
      ? 'running'
      : failed.length > 0
        ? 'failed'
        : completed.length === 0
          ? 'cancelled'
          : 'completed';

  return (
    <article
      className={`task-card batch-card status-${state}`}
      aria-label={`${name}: ${status}`}
      data-batch-size={cards.length}
      data-task-id={first.task_id}
    >
      <div className={`batch-grid batch-of-${Math.min(cards.length, 4)}`}>
        {cards.map((card) => (
          <div key={card.task_id} className="task-visual" style={{ aspectRatio: cssAspect(card.aspect) }}>
            <BatchImage
              card={card}
              name={cards.length > 1 ? `${name} (${card.index + 1} of ${cards.length})` : name}
              onOpen={onOpen}
            />
            {imageActions.buttonsFor(card)}
          </div>
        ))}
      </div>
      <div className="task-body">
        <div className="task-topline">
          <span
            className={`badge source-${first.source}`}
            title={first.source === 'api' ? 'Submitted through the API' : 'Submitted on this website'}
          >
            {first.source === 'api' ? 'API' : 'Web'}
          </span>
          <span className={`status-text status-${state === 'running' ? first.status : state}`}>{status}</span>
        </div>
        {running > 0 && <ProgressBar value={meanProgress} label={`Progress: ${name}`} />}
        <p className="task-prompt" title={first.prompt}>
          {first.prompt}
        </p>
        <p className="task-meta">
          {first.model} · {first.mode} · {first.aspect} · {first.imageSize}
          {cards.length > 1 ? ` · ×${cards.length}` : ''}
        </p>
        {errors.map((error) => (
          <p key={error} className="error-text" role="status">
            {failed.length > 1 && cards.length > 1 ? `${failed.length} failed: ` : ''}
            {error}
          </p>
        ))}
        {action.error && (
          <p className="error-text" role="alert">
            {action.error}
          </p>
        )}
        {imageActions.status}
        <BatchActions
          batch={batch}
          action={action}
          onOpen={onOpen}
          onUseAsReference={onUseAsReference}
          onSubmitted={onSubmitted}
        />
      </div>
    </article>
  );
});

/** What a person does next with a batch: cancel, retry, render the cancelled, re-run, reuse, download. */
function BatchActions({
  batch,
  action,
  onOpen,
  onUseAsReference,
  onSubmitted,
}: {
  batch: Batch;
  action: ReturnType<typeof useAction>;
  onOpen: (card: Card, refine?: boolean) => void;
  onUseAsReference: (card: Card) => void;
  onSubmitted: () => void;
}) {
  const { cards, first, running, failed, cancelled, completed } = batch;
  const single = cards.length === 1 ? completed[0] : undefined;
  const submit = (count: number) =>
    action.run(async () => {
      await submitGenerate(requestOf(batch, count));
      onSubmitted();
    });
  return (
    <div className="card-actions batch-actions">
      {running > 0 && (
        <button
          type="button"
          className="button small"
          disabled={action.busy}
          onClick={() =>
            action.run(async () => {
              await cancelBatch(batch);
            })
          }
        >
          Cancel
        </button>
      )}
      {running === 0 && failed.length > 0 && (
        <button
          type="button"
          className="button small"
          disabled={action.busy}
          onClick={() => submit(failed.length)}
        >
          {cards.length > 1 ? `Retry ${failed.length} failed` : 'Retry'}
        </button>
      )}
      {running === 0 && cancelled.length > 0 && cards.length > 1 && completed.length > 0 && (
        <button
          type="button"
          className="button small"
          disabled={action.busy}
          onClick={() => submit(cancelled.length)}
        >
          Render the {cancelled.length} cancelled
        </button>
      )}
      <button
        type="button"
        className="button small"
        disabled={action.busy}
        onClick={() => submit(first.count)}
      >
        Re-run
      </button>
      <button type="button" className="button small ghost" onClick={() => reuseSettings(batch)}>
        Reuse settings
      </button>
      {single?.imageUrl && (
        <button type="button" className="button small ghost" onClick={() => onUseAsReference(single)}>
          Use as reference
        </button>
      )}
      {single?.imageUrl && single.generation_id && (
        <button type="button" className="button small ghost" onClick={() => onOpen(single, true)}>
          Refine
        </button>
      )}
      <BatchDownloads batch={batch} single={single} onOpen={onOpen} />
    </div>
  );
}

/** Open and download the single image, or download all of a batch as a ZIP. */
function BatchDownloads({
  batch,
  single,
  onOpen,
}: {
  batch: Batch;
  single: Card | undefined;
  onOpen: (card: Card) => void;
}) {
  const { cards, first, completed } = batch;
  return (
    <span className="icon-actions">
      {single?.imageUrl && (
        <>
          <button
            type="button"
            className="icon-button"
            onClick={() => onOpen(single)}
            aria-label="Open"
            title="Open large"
          >
            <ExpandIcon />
          </button>
          <a
            className="icon-button"
            href={single.imageUrl}
            download={downloadName(single.prompt, single.task_id, single.imageUrl)}
            aria-label="Download"
            title="Download"
          >
            <DownloadIcon />
          </a>
        </>
      )}
      {cards.length > 1 && completed.length > 0 && (
        <a
          className="button small ghost"
          href={`/web/api/downloads/zip?works=${encodeURIComponent(first.generation_id)}`}
          download
          aria-disabled={first.generation_id === '' || undefined}
        >
          <DownloadIcon /> Download all
        </a>
      )}
    </span>
  );
}
