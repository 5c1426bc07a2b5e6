import { useEffect, useMemo, useRef, useState } from 'react';
import { fitToModel } from '../../lib/catalog';
import { draftStore } from '../../lib/draft';
import { useStore } from '../../lib/store';
import { shortText } from '../../lib/text';
import type { TaskCard as Card, Catalog } from '../../lib/types';
import { isFinalStatus } from '../../lib/vocabulary';

/** The creation view's hooks: the draft fitted to the catalog, and what finished, said aloud. */

/** The draft fitted to the catalog, so every picker only ever shows what the model allows. */
export function useFittedDraft(catalog: Catalog | undefined) {
  const draft = useStore(draftStore);
  const fitted = useMemo(() => (catalog ? fitToModel(draft, catalog) : undefined), [draft, catalog]);
  useEffect(() => {
    if (!fitted) return;
    const { entry: _entry, ...settings } = fitted;
    const current = draftStore.get();
    if (
      current.model !== settings.model ||
      current.mode !== settings.mode ||
      current.aspect !== settings.aspect ||
      current.imageSize !== settings.imageSize ||
      current.count !== settings.count
    ) {
      draftStore.set({ ...current, ...settings });
    }
  }, [fitted]);
  return { draft, fitted };
}

/** Announces finished tasks to screen readers (the cards themselves update silently). */
export function useCompletionAnnouncements(cards: Card[]): string {
  const seen = useRef(new Map<string, string>());
  const [message, setMessage] = useState('');
  useEffect(() => {
    const finished: string[] = [];
    for (const card of cards) {
      const before = seen.current.get(card.task_id);
      if (before !== undefined && before !== card.status && isFinalStatus(card.status)) {
        finished.push(
          card.status === 'completed'
            ? `Image ready: ${shortText(card.prompt)}`
            : `Task failed: ${shortText(card.prompt)}`,
        );
      }
      seen.current.set(card.task_id, card.status);
    }
    if (finished.length > 0) setMessage(finished.join('. '));
  }, [cards]);
  return message;
}
