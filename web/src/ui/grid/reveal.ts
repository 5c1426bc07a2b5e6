/**
 * The reveal: asked by the lightbox when it closes on an item whose card is not rendered, answered by
 * the virtual grid holding it (it scrolls the card's row into view, then focuses the card). A typed
 * channel between the two, called at once (the grid that holds one of the ids answers).
 */
export interface RevealRequest {
  /** The item's ids (its key, its work's id): the grid holding one of them answers. */
  ids: string[];
  /** The card's open button, focused once rendered. */
  selector: string;
}

type RevealListener = (request: RevealRequest) => void;
const listeners = new Set<RevealListener>();

/** Asks the grids to reveal a card. */
export function requestReveal(request: RevealRequest): void {
  for (const listener of [...listeners]) listener(request);
}

/** Listens for reveal requests; returns the unsubscribe. */
export function onRevealRequest(listener: RevealListener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
