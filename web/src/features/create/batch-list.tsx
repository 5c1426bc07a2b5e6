import { useMemo, useRef } from 'react';
import { Link } from '../../lib/router';
import type { TaskCard as Card } from '../../lib/types';
import { BatchCard } from './batch-card';
import { groupBatches } from './batches';
import { useEstimates, useNow } from './estimates';
import { useMasonryRows } from './masonry';

/**
 * Create's "Tasks" column: one card per generate request (API ones too, labelled), the running
 * count, "Clear finished", and past the listing's window a link to the rest in Saved works.
 */
export function BatchList({
  cards,
  hasMore,
  announcement,
  onOpen,
  onUseAsReference,
  onSubmitted,
  onClear,
}: {
  cards: Card[];
  hasMore: boolean;
  announcement: string;
  /** Opens the card's image in the lightbox (`refine`: with its Refine field open). */
  onOpen: (card: Card, refine?: boolean) => void;
  onUseAsReference: (card: Card) => void;
  onSubmitted: () => void;
  onClear: () => void;
}) {
  const batches = useMemo(() => groupBatches(cards), [cards]);
  const running = batches.reduce((sum, b) => sum + b.running, 0);
  const finished = cards.length - running;
  const estimateOf = useEstimates(cards.filter((c) => c.status === 'completed').length);
  const now = useNow(running > 0);
  const grid = useRef<HTMLDivElement>(null);
  useMasonryRows(grid, batches.length > 0);

  return (
    <section className="tasks" aria-labelledby="tasks-heading">
      <header className="tasks-header">
        <h2 id="tasks-heading" tabIndex={-1}>
          Tasks
          {running > 0 && <span className="count-pill">{running} running</span>}
        </h2>
        {finished > 0 && (
          <button type="button" className="button small ghost" onClick={onClear}>
            Clear finished
          </button>
        )}
      </header>
      <p className="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      {batches.length === 0 ? (
        <div className="empty">
          <p>Your images appear here as they render.</p>
          <p className="muted small">
            Tasks submitted through the API with this account show up here too, marked “API”, and update live.
          </p>
        </div>
      ) : (
        <div className="task-grid masonry" ref={grid}>
          {batches.map((batch) => (
            <BatchCard
              key={batch.key}
              batch={batch}
              now={now}
              estimate={estimateOf(batch.first.model, batch.first.imageSize)}
              onOpen={onOpen}
              onUseAsReference={onUseAsReference}
              onSubmitted={onSubmitted}
            />
          ))}
        </div>
      )}
      {hasMore && (
        <p className="more-tasks muted">
          Showing the newest {cards.length} tasks. Older ones are in <Link href="/works">Saved works</Link>.
        </p>
      )}
    </section>
  );
}
