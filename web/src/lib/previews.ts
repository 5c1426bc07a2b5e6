import { createStore, useStore } from './store';

/**
 * Live previews (issue 37): how many partial frames each rendering task has stored, as the task
 * event stream says (`event: preview`, asked with `previews=true`). The card shows the newest
 * frame until its image arrives. Only while streaming: the polling fallback shows no preview.
 */
const previewsStore = createStore<Readonly<Record<string, number>>>({});

/** Records a task's frame count (counts only grow; a late or repeated event changes nothing). */
export function notePreview(taskId: string, frames: number): void {
  previewsStore.set((current) =>
    (current[taskId] ?? 0) >= frames ? current : { ...current, [taskId]: frames },
  );
}

/** The URL of the task's newest frame, or undefined while it has none. */
export function usePreviewUrl(taskId: string): string | undefined {
  const frames = useStore(previewsStore)[taskId] ?? 0;
  if (frames === 0) return undefined;
  return `/web/api/tasks/${encodeURIComponent(taskId)}/preview?frame=${frames - 1}`;
}
