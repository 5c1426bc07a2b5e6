import { type DragEvent, useCallback, useEffect, useRef, useState } from 'react';
import { messageOf } from './api';
import { type Collection, type Collections, setMembers } from './curation';
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

/**
 * Works dropped on a collection are added at once; the confirmation offers Undo for a while
 * (UNDO_MS), which takes out exactly the works this drop added (ones already in stay). `memberOf`
 * says which collections a listed work was in when loaded; drops since are remembered here.
 */
export function useCollectionDrop(collections: Collections, memberOf: (workId: string) => readonly string[]) {
  const [offer, setOffer] = useState<Offer>();
  const [error, setError] = useState<string>();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const added = useRef(new Map<string, Set<string>>());
  const show = useCallback((next: Offer | undefined) => {
    clearTimeout(timer.current);
    setOffer(next);
    if (next) timer.current = setTimeout(() => setOffer(undefined), UNDO_MS);
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);

  const drop = async (collection: Collection, ids: string[]) => {
    if (ids.length === 0) return;
    setError(undefined);
    const mine = added.current.get(collection.id) ?? new Set<string>();
    added.current.set(collection.id, mine);
    const fresh = ids.filter((id) => !mine.has(id) && !memberOf(id).includes(collection.id));
    if (fresh.length === 0) {
      show({
        label: `${ids.length === 1 ? 'Already' : 'All already'} in ${collection.name}`,
        undoable: false,
      });
      return;
    }
    try {
      await setMembers(collection.id, fresh, true);
    } catch (failure) {
      setError(messageOf(failure));
      return;
    } finally {
      await collections.reload();
    }
    for (const id of fresh) mine.add(id);
    show({
      label: `Added ${plural(fresh.length)} to ${collection.name}`,
      undoable: true,
      undo: async () => {
        show(undefined);
        try {
          await setMembers(collection.id, fresh, false);
          for (const id of fresh) mine.delete(id);
        } catch (failure) {
          setError(messageOf(failure));
        }
        await collections.reload();
      },
    });
  };

  return { offer, error, drop, dismiss: () => show(undefined) };
}
