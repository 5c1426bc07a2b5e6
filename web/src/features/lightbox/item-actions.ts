import { api } from '../../lib/api';
import { addDraftReference, draftStore } from '../../lib/draft';
import { navigate } from '../../lib/router';
import { tasksStore } from '../../lib/tasks';
import type { Mode } from '../../lib/types';
import { fetchWork } from '../../lib/work-link';
import { type LightboxItem, settingsOfWork, type WorkSettings } from './lightbox-items';

const known = new Map<string, Promise<WorkSettings | null>>();

/**
 * A work's settings read by id (GET /web/api/works/{id}) for items whose list does not carry them
 * (a Library result, a Create card's references); null for a deleted work. Cached.
 */
export function workSettings(workId: string): Promise<WorkSettings | null> {
  let answer = known.get(workId);
  if (!answer) {
    answer = fetchWork(workId).then(
      (work) => settingsOfWork(work),
      () => {
        known.delete(workId); // a failure is not remembered: the next look asks again
        return null;
      },
    );
    known.set(workId, answer);
  }
  return answer;
}

/** Fills the Create form with a work's settings (and references), then goes there. */
export function reuseSettings(settings: WorkSettings): void {
  draftStore.set((draft) => ({
    ...draft,
    prompt: settings.prompt,
    model: settings.model,
    mode: settings.mode as Mode,
    aspect: settings.aspect,
    imageSize: settings.imageSize,
    count: settings.count,
    references: (settings.refs ?? []).map((url, i) => ({ url, name: `Reference ${i + 1}` })),
  }));
  navigate('/');
}

/** Adds the image to Create's references, then goes there. */
export function addAsReference(item: LightboxItem): void {
  if (!item.url) return;
  addDraftReference({
    url: item.url,
    name: item.caption ?? item.alt,
    width: item.width,
    height: item.height,
    bytes: item.bytes,
  });
  navigate('/');
}

/** Deletes a work (the confirmation was answered); on Create its cards leave the view and stay out. */
export async function deleteWorkOfCards(workId: string): Promise<void> {
  await api.delete(`/web/api/works/${encodeURIComponent(workId)}`);
  tasksStore.set((state) => {
    const gone = state.cards.filter((card) => card.generation_id === workId).map((card) => card.task_id);
    return {
      ...state,
      cards: state.cards.filter((card) => card.generation_id !== workId),
      dismissed: [...state.dismissed, ...gone].slice(-500),
    };
  });
}
