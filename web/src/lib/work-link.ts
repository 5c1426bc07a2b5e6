import { useEffect, useState } from 'react';
import { api, messageOf } from './api';
import type { SavedWork } from './types';

/** One saved work by id (GET /web/api/works/{id}): 404 for a deleted one or another account's. */
export function fetchWork(workId: string): Promise<SavedWork> {
  return api.get<SavedWork>(`/web/api/works/${encodeURIComponent(workId)}`);
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
