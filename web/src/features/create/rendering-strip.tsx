import { useMemo } from 'react';
import type { TaskCard } from '../../lib/types';
import { groupBatches } from './batches';

/** What the strip says: every image of the batches still rendering, and how many of them are done. */
export function renderingText(cards: readonly TaskCard[]): string {
  const running = groupBatches([...cards]).filter((batch) => batch.running > 0);
  const images = running.reduce((sum, batch) => sum + batch.cards.length, 0);
  const done = running.reduce((sum, batch) => sum + batch.completed.length, 0);
  const what = `Rendering ${images} ${images === 1 ? 'image' : 'images'}`;
  return done > 0 ? `${what}, ${done} done…` : `${what}…`;
}

/**
 * Where the results sit below the form (one column, a phone): a strip stuck with Generate says
 * what is rendering and scrolls to the cards. Hidden by CSS where the cards are beside the form.
 * A batch counts whole: four images with two done are "Rendering 4 images, 2 done", not "2 images".
 */
export function RenderingStrip({ cards }: { cards: readonly TaskCard[] }) {
  const text = useMemo(() => renderingText(cards), [cards]);
  return (
    <button
      type="button"
      className="rendering-strip"
      onClick={() => {
        const heading = document.getElementById('tasks-heading');
        heading?.scrollIntoView({ block: 'start' });
        heading?.focus({ preventScroll: true });
      }}
    >
      {text}
      <span className="rendering-view">View</span>
    </button>
  );
}
