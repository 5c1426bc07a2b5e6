import { type PointerEvent, type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import type { LightboxItem } from './lightbox-items';

/** Where the lightbox is in its list, and how it moves (loading the list's next page at the end). */
export function useLightboxPosition({
  items,
  startKey,
  hasMore = false,
  loading = false,
  loadMore,
}: {
  items: readonly LightboxItem[];
  startKey: string;
  hasMore?: boolean | undefined;
  loading?: boolean | undefined;
  loadMore?: (() => void) | undefined;
}) {
  const [key, setKey] = useState(startKey);
  /** The last index shown: when its item leaves the list (deleted), the one that took its place shows. */
  const lastIndex = useRef(0);
  /** The person asked for the next image past the loaded end: shown once the next page arrives. */
  const [waitingFor, setWaitingFor] = useState<number>();
  const found = items.findIndex((item) => item.key === key);
  const index = found >= 0 ? found : Math.min(lastIndex.current, items.length - 1);
  const item = index >= 0 ? items[index] : undefined;
  if (found >= 0) lastIndex.current = found;

  useEffect(() => {
    if (item && item.key !== key) setKey(item.key);
  }, [item, key]);

  useEffect(() => {
    if (waitingFor === undefined) return;
    const next = items[waitingFor];
    if (next) {
      setKey(next.key);
      setWaitingFor(undefined);
    } else if (!loading && !hasMore) setWaitingFor(undefined);
  }, [items, waitingFor, loading, hasMore]);

  const atEnd = index === items.length - 1;
  const canLoad = atEnd && hasMore && loadMore !== undefined;

  /** Moves by `delta` (±1) or to an end ('first', 'last'); false when there is nowhere to go. */
  const go = useCallback(
    (to: number | 'first' | 'last'): boolean => {
      const target = to === 'first' ? 0 : to === 'last' ? items.length - 1 : index + to;
      const next = items[target];
      if (next && target !== index) {
        setKey(next.key);
        return true;
      }
      if (to === 1 && canLoad) {
        setWaitingFor(index + 1);
        if (!loading) loadMore?.();
        return true;
      }
      return false;
    },
    [items, index, canLoad, loading, loadMore],
  );

  return { index, item, go, atStart: index <= 0, atEnd, loadingMore: waitingFor !== undefined };
}

const SWIPE_MIN_PX = 50;

/**
 * Pointer gestures on the image's stage: while zoomed a drag pans (the stage scrolls), otherwise a
 * horizontal swipe (touch, pen or mouse) moves to the previous or next image. The stage takes
 * `touch-action: none`, so a finger's moves arrive as pointer events instead of scrolling the page.
 */
export function useStageGestures(
  stage: RefObject<HTMLDivElement | null>,
  zoomed: boolean,
  onSwipe: (direction: -1 | 1) => void,
) {
  const start = useRef<{ x: number; y: number; id: number; lastX: number; lastY: number }>(undefined);

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    start.current = {
      x: event.clientX,
      y: event.clientY,
      lastX: event.clientX,
      lastY: event.clientY,
      id: event.pointerId,
    };
    if (zoomed) event.currentTarget.setPointerCapture?.(event.pointerId);
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const begun = start.current;
    if (!begun || begun.id !== event.pointerId || !zoomed || !stage.current) return;
    stage.current.scrollLeft -= event.clientX - begun.lastX;
    stage.current.scrollTop -= event.clientY - begun.lastY;
    begun.lastX = event.clientX;
    begun.lastY = event.clientY;
  };
  const onPointerUp = (event: PointerEvent<HTMLDivElement>) => {
    const begun = start.current;
    start.current = undefined;
    if (!begun || begun.id !== event.pointerId || zoomed) return;
    const dx = event.clientX - begun.x;
    const dy = event.clientY - begun.y;
    if (Math.abs(dx) >= SWIPE_MIN_PX && Math.abs(dx) > 1.5 * Math.abs(dy)) onSwipe(dx < 0 ? 1 : -1);
  };
  const onPointerCancel = () => {
    start.current = undefined;
  };
  return { onPointerDown, onPointerMove, onPointerUp, onPointerCancel };
}

/** Zoomed in, the stage's scroll starts centred on the image. */
export function useCentredZoom(stage: RefObject<HTMLDivElement | null>, zoomed: boolean, key: string) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new image (key) re-centres too.
  useEffect(() => {
    const element = stage.current;
    if (!zoomed || !element) return;
    element.scrollLeft = (element.scrollWidth - element.clientWidth) / 2;
    element.scrollTop = (element.scrollHeight - element.clientHeight) / 2;
  }, [zoomed, key, stage]);
}
