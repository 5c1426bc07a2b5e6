import { useEffect, useState } from 'react';
import { api, messageOf } from './api';
import type { SavedWork } from './types';

/**
 * One saved work by id (GET /web/api/works/{id}): 404 for a deleted one or another account's, 410
 * for one whose files were removed (deleted past its Undo window, or expired): its message says so.
 */
export function fetchWork(workId: string): Promise<SavedWork> {
  const early = asked.get(workId);
  asked.delete(workId);
  // Asked for before the session was known: a refusal then (signed out) is asked again now.
  if (early) return early.catch(() => fetchWork(workId));
  return api.get<SavedWork>(`/web/api/works/${encodeURIComponent(workId)}`);
}

/** Works asked for at start-up (askEarly), taken by the first fetchWork of each. */
const asked = new Map<string, Promise<SavedWork>>();

/**
 * A work's own link opened from outside (`/works?work=<id>`, issue 37: a deep link should show its
 * image within a second): the work and Saved works' code are asked for at once, beside the session
 * check, instead of one after the other (session, then the page's chunk, then the work).
 */
export function askEarly(location: Location, loadPage: () => Promise<unknown>): void {
  const workId = location.pathname === '/works' ? new URLSearchParams(location.search).get('work') : null;
  if (!workId) return;
  void loadPage().catch(() => undefined);
  // Plain fetch: a signed-out visitor's 401 here is not the session ending (the check says so).
  const work = fetch(`/web/api/works/${encodeURIComponent(workId)}`, {
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
  }).then((answer) => (answer.ok ? (answer.json() as Promise<SavedWork>) : Promise.reject(answer.status)));
  work.catch(() => undefined);
  asked.set(workId, work);
}

/**
 * A work's own link, `/works?work=<id>` (issue 30): the work itself, read by id, whatever the
 * search shows; `error` when it cannot be opened (deleted, not this account's). Old links that also
 * carry `q` keep working: the search applies, and the work opens by id all the same.
 */
export function useLinkedWork(workId: string | null): { work?: SavedWork; error?: string } {
  const [state, setState] = useState<{ id: string; work?: SavedWork; error?: string }>();
  useEffect(() => {
    if (!workId) return;
    let live = true;
    fetchWork(workId).then(
      (work) => live && setState({ id: workId, work }),
      (failure) =>
        live &&
        setState({
          id: workId,
          error: `This work cannot be opened: ${messageOf(failure)}`,
        }),
    );
    return () => {
      live = false;
    };
  }, [workId]);
  if (!workId || state?.id !== workId) return {};
  return { ...(state.work ? { work: state.work } : {}), ...(state.error ? { error: state.error } : {}) };
}

/**
 * Whether the page may load its list yet (issue 37: a deep link in a 5,000-work account took 4.4
 * and 10.4 s to show its image). The list's first page asks for two dozen thumbnails, each a
 * rendition the server may have to make first; the linked work's own image waited behind them.
 * With a link, the list waits until the linked work's first image has loaded (or the link failed,
 * or the work has no image); without one, it loads at once.
 */
export function useListAfterLink(
  linkedAtStart: boolean,
  work: SavedWork | undefined,
  error: string | undefined,
): boolean {
  const [ready, setReady] = useState(!linkedAtStart);
  useEffect(() => {
    if (ready || (!work && !error)) return;
    const url = work?.tasks.find((task) => task.status === 'completed' && task.imageUrl)?.imageUrl;
    if (!url) {
      setReady(true);
      return;
    }
    // The lightbox asks for the same URL: the browser serves both from one response.
    const image = new Image();
    image.src = url;
    void image
      .decode()
      .catch(() => undefined)
      .finally(() => setReady(true));
  }, [ready, work, error]);
  return ready;
}
