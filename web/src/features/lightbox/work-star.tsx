import { useEffect, useState } from 'react';
import { fetchWork } from '../../lib/work-link';
import { StarButton } from '../curation/star-button';

/** What this tab last knew of each work's star: moving back to a work shows it at once. */
const known = new Map<string, boolean>();

/**
 * The star of the lightbox's work where the page's list does not carry it (Create's cards, the
 * Library's results): read with the work (GET /web/api/works/{id}), then the same button as Saved
 * works'. Nothing shows until the answer says the work is there (a deleted one has no star).
 */
export function WorkStar({ workId }: { workId: string }) {
  const [starred, setStarred] = useState(known.get(workId));
  useEffect(() => {
    let live = true;
    fetchWork(workId).then(
      (work) => {
        known.set(workId, work.starred ?? false);
        if (live) setStarred(work.starred ?? false);
      },
      () => undefined, // deleted, or not readable: no star to offer
    );
    return () => {
      live = false;
    };
  }, [workId]);
  if (starred === undefined) return null;
  return (
    <StarButton
      workId={workId}
      starred={starred}
      onChange={(next) => {
        known.set(workId, next);
        setStarred(next);
      }}
      withText
    />
  );
}
