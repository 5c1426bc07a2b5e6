import { type KeyboardEvent, useCallback, useRef } from 'react';
import { api } from '../../lib/api';
import type { RecentPrompts } from '../../lib/types';

/** The account's recent prompts, newest first (GET /web/api/prompts: server-side, every device's). */
export async function recentPrompts(q = '', limit = 50, signal?: AbortSignal): Promise<string[]> {
  const query = new URLSearchParams({ limit: String(limit) });
  if (q.trim() !== '') query.set('q', q.trim());
  const init: RequestInit = signal ? { signal } : {};
  return (await api.get<RecentPrompts>(`/web/api/prompts?${query}`, init)).prompts;
}

/**
 * ↑ and ↓ in the prompt walk through past prompts, as a shell's history does: ↑ in an empty prompt
 * (or with the caret at its very start) shows the previous prompt, ↓ the next one, and past the
 * newest, what was typed before the walk began. Typing ends the walk (`onType`).
 */
export function usePromptHistory(prompt: string, setPrompt: (prompt: string) => void) {
  const walk = useRef<{ list: string[]; at: number; typed: string } | undefined>(undefined);
  const loading = useRef<Promise<string[]> | undefined>(undefined);

  const onKeyDown = useCallback(
    async (event: KeyboardEvent<HTMLTextAreaElement>) => {
      if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return;
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      const field = event.currentTarget;
      const atStart = field.selectionStart === 0 && field.selectionEnd === 0;
      const walking = walk.current !== undefined;
      // Only where the arrow would not move the caret anyway: an empty prompt, the caret at its start,
      // or a walk already under way (the shown prompt is history, not text being written).
      if (!walking && !(prompt === '' || (event.key === 'ArrowUp' && atStart))) return;
      if (!walking && event.key === 'ArrowDown') return;
      event.preventDefault();
      if (!walk.current) {
        loading.current ??= recentPrompts().finally(() => {
          loading.current = undefined;
        });
        const list = await loading.current.catch(() => [] as string[]);
        walk.current = { list: list.filter((p) => p !== prompt), at: -1, typed: prompt };
      }
      const current = walk.current;
      const next =
        event.key === 'ArrowUp' ? Math.min(current.at + 1, current.list.length - 1) : current.at - 1;
      if (next < 0) {
        walk.current = undefined;
        setPrompt(current.typed);
        return;
      }
      current.at = next;
      setPrompt(current.list[next] ?? current.typed);
      // The caret at the start, so the next ↑ walks on.
      requestAnimationFrame(() => field.setSelectionRange(0, 0));
    },
    [prompt, setPrompt],
  );

  /** The person typed: the shown prompt is theirs now, and the next ↑ starts a new walk. */
  const onType = useCallback(() => {
    walk.current = undefined;
  }, []);

  return { onKeyDown, onType };
}
