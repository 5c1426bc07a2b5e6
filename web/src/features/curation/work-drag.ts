import { type DragEvent, useCallback, useEffect, useRef, useState } from 'react';
import { messageOf } from '../../lib/api';
import { type Collection, type Collections, setMembers, setStar } from './curation';
import { UNDO_MS } from './deferred-delete';
import type { Selection } from './selection';

/** The drag data of works dragged from Saved works: their ids, as JSON. */
export const WORKS_DRAG_TYPE = 'application/x-atelier-works';

const plural = (n: number) => (n === 1 ? '1 work' : `${n} works`);

/**
 * Works dragged from the grid (issue 37): a drag that starts on a card (`[data-work-id]`) carries
 * the selected works when that card is selected, else that card alone. Listened for on the document,
 * so the grid and its cards need not know; `count` is how many a drag in progress carries.
 */
export function useWorkDragSource(selection: Selection, order: readonly string[]) {
  const [count, setCount] = useState(0);
  const latest = useRef({ selection, order });
  latest.current = { selection, order };
  useEffect(() => {
    const start = (event: globalThis.DragEvent) => {
      const card =
        event.target instanceof Element ? event.target.closest<HTMLElement>('[data-work-id]') : null;
      const id = card?.dataset.workId;
      if (!id || !event.dataTransfer) return;
      const { selected } = latest.current.selection;
      const ids = selected.has(id) ? latest.current.order.filter((each) => selected.has(each)) : [id];
      event.dataTransfer.setData(WORKS_DRAG_TYPE, JSON.stringify(ids));
      event.dataTransfer.effectAllowed = 'copy';
      if (ids.length > 1) {
        // The pointer carries a chip saying how many, not the one card's picture.
        const chip = document.createElement('div');
        chip.className = 'drag-chip';
        chip.textContent = plural(ids.length);
        document.body.append(chip);
        event.dataTransfer.setDragImage(chip, 12, 12);
        setTimeout(() => chip.remove(), 0);
      }
      setCount(ids.length);
    };
    const end = () => setCount(0);
    document.addEventListener('dragstart', start);
    document.addEventListener('dragend', end);
    document.addEventListener('drop', end);
    return () => {
      document.removeEventListener('dragstart', start);
      document.removeEventListener('dragend', end);
      document.removeEventListener('drop', end);
    };
  }, []);
  return count;
}

/** Whether a drag carries works (only then is a collection a drop target). */
export const carriesWorks = (event: DragEvent) => event.dataTransfer.types.includes(WORKS_DRAG_TYPE);

/** The works a drop carries. */
export function droppedWorks(event: DragEvent): string[] {
  try {
    const ids: unknown = JSON.parse(event.dataTransfer.getData(WORKS_DRAG_TYPE) || '[]');
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/** A drop's confirmation (one object per drop: the toast moves focus to Undo when it changes). */
interface Offer {
  label: string;
  undoable: boolean;
  undo?: () => Promise<void>;
}

/** Where works can be dropped: a collection, or the stars. */
export interface DropTarget {
  /** "Added 2 works to Harbours", "Starred 2 works". */
  done: (count: number) => string;
  /** "Already in Harbours", "All already starred". */
  already: (count: number) => string;
  /** Whether a work is there already (a drop leaves it alone, and its Undo too). */
  has: (workId: string) => boolean;
  /** Puts the works there (`on`) or takes them out. */
  set: (workIds: string[], on: boolean) => Promise<void>;
}

/**
 * Works dropped on a target are put there at once; the confirmation offers Undo for a while
 * (UNDO_MS), which takes out exactly the works this drop put there (ones already there stay).
 */
export function useWorksDrop() {
  const [offer, setOffer] = useState<Offer>();
  const [error, setError] = useState<string>();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const show = useCallback((next: Offer | undefined) => {
    clearTimeout(timer.current);
    setOffer(next);
    if (next) timer.current = setTimeout(() => setOffer(undefined), UNDO_MS);
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);

  const drop = async (target: DropTarget, ids: string[]) => {
    if (ids.length === 0) return;
    setError(undefined);
    const fresh = ids.filter((id) => !target.has(id));
    if (fresh.length === 0) {
      show({ label: target.already(ids.length), undoable: false });
      return;
    }
    try {
      await target.set(fresh, true);
    } catch (failure) {
      setError(messageOf(failure));
      return;
    }
    show({
      label: target.done(fresh.length),
      undoable: true,
      undo: async () => {
        show(undefined);
        try {
          await target.set(fresh, false);
        } catch (failure) {
          setError(messageOf(failure));
        }
      },
    });
  };

  return { offer, error, drop, dismiss: () => show(undefined) };
}

/**
 * A collection as a drop target. `memberOf` says which collections a listed work was in when
 * loaded; drops since are remembered here (`added`, per collection).
 */
export function collectionTarget(
  collection: Collection,
  collections: Collections,
  memberOf: (workId: string) => readonly string[],
  added: Map<string, Set<string>>,
): DropTarget {
  const mine = added.get(collection.id) ?? new Set<string>();
  added.set(collection.id, mine);
  return {
    done: (n) => `Added ${plural(n)} to ${collection.name}`,
    already: (n) => `${n === 1 ? 'Already' : 'All already'} in ${collection.name}`,
    has: (id) => mine.has(id) || memberOf(id).includes(collection.id),
    set: async (ids, on) => {
      try {
        await setMembers(collection.id, ids, on);
        for (const id of ids) on ? mine.add(id) : mine.delete(id);
      } finally {
        await collections.reload();
      }
    },
  };
}

/** The stars as a drop target: dropped works are starred (`onStarred` tells the page). */
export function starTarget(
  starred: (workId: string) => boolean,
  onStarred: (workIds: string[], starred: boolean) => void,
): DropTarget {
  return {
    done: (n) => `Starred ${plural(n)}`,
    already: (n) => (n === 1 ? 'Already starred' : 'All already starred'),
    has: starred,
    set: async (ids, on) => {
      const done: string[] = [];
      try {
        const queue = [...ids];
        const worker = async () => {
          for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
            await setStar(id, on);
            done.push(id);
          }
        };
        await Promise.all([worker(), worker(), worker(), worker()]);
      } finally {
        onStarred(done, on);
      }
    },
  };
}
