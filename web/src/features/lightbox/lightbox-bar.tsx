import { shortText } from '../../lib/text';
import { CloseIcon } from '../../ui/icons';
import type { LightboxItem } from './lightbox-items';

/** The lightbox's top bar: where it is in the list, the image's title, and its tools. */
export function LightboxBar({
  item,
  index,
  count,
  hasMore,
  totalKnown,
  loadingMore,
  ids,
  zoomed,
  comparing,
  showDetails,
  onZoom,
  onCompare,
  onDetails,
  onShortcuts,
  onClose,
}: {
  item: LightboxItem;
  index: number;
  count: number;
  hasMore: boolean | undefined;
  totalKnown: boolean;
  loadingMore: boolean;
  ids: { title: string; counter: string; details: string };
  zoomed: boolean;
  comparing: boolean;
  showDetails: boolean;
  onZoom: () => void;
  onCompare: () => void;
  onDetails: () => void;
  onShortcuts: () => void;
  onClose: () => void;
}) {
  return (
    <header className="lightbox-bar">
      <p className="lightbox-counter" id={ids.counter}>
        <span aria-hidden="true" data-testid="lightbox-counter">
          {index + 1} / {count}
          {hasMore && !totalKnown ? '+' : ''}
        </span>
        <span className="visually-hidden">
          Image {index + 1} of {count}
          {hasMore ? ', more load at the end' : ''}
        </span>
        {loadingMore && <span className="muted"> · Loading more…</span>}
      </p>
      <h2 className="lightbox-title" id={ids.title}>
        {shortText(item.caption ?? item.alt)}
      </h2>
      <div className="lightbox-tools">
        <button
          type="button"
          className="button small"
          onClick={onZoom}
          aria-pressed={zoomed}
          aria-keyshortcuts="Z"
          disabled={!item.url}
        >
          {zoomed ? 'Fit' : '100 %'}
        </button>
        <button
          type="button"
          className="button small"
          onClick={onCompare}
          aria-pressed={comparing}
          aria-keyshortcuts="K"
          disabled={!item.url}
        >
          Compare
        </button>
        <LightboxBarEnd
          ids={ids}
          showDetails={showDetails}
          onDetails={onDetails}
          onShortcuts={onShortcuts}
          onClose={onClose}
        />
      </div>
    </header>
  );
}

/** The bar's last tools: the details panel, the list of shortcuts, close. */
function LightboxBarEnd({
  ids,
  showDetails,
  onDetails,
  onShortcuts,
  onClose,
}: {
  ids: { details: string };
  showDetails: boolean;
  onDetails: () => void;
  onShortcuts: () => void;
  onClose: () => void;
}) {
  return (
    <>
      <button
        type="button"
        className="button small"
        onClick={onDetails}
        aria-expanded={showDetails}
        aria-controls={ids.details}
        aria-keyshortcuts="I"
      >
        Details
      </button>
      <button
        type="button"
        className="icon-button"
        onClick={onShortcuts}
        aria-label="Keyboard shortcuts"
        aria-keyshortcuts="?"
        title="Keyboard shortcuts (?)"
      >
        ?
      </button>
      <button type="button" className="icon-button" onClick={onClose} aria-label="Close" title="Close (Esc)">
        <CloseIcon />
      </button>
    </>
  );
}
