import type { RefObject } from 'react';
import type { SavedWork } from '../../lib/types';
import { ConfirmDialog } from '../../ui/dialog';
import { StarButton } from '../curation/star-button';

/** The page's heading, the count of works, and the polite notice line. */
export function WorksHeader({
  heading,
  total,
  notice,
}: {
  heading: RefObject<HTMLHeadingElement | null>;
  total: number | undefined;
  notice: string;
}) {
  return (
    <>
      <header className="page-header">
        <h1 className="page-title" ref={heading} tabIndex={-1}>
          Saved works
        </h1>
        {total !== undefined && <p className="muted">{total === 1 ? '1 work' : `${total} works`}</p>}
      </header>
      <p className="visually-hidden" aria-live="polite">
        {notice}
      </p>
    </>
  );
}

/** No work to show: none matches the search, or none is saved yet. */
export function WorksEmpty({ filtered }: { filtered: boolean }) {
  return filtered ? (
    <div className="empty">
      <p>No saved work matches this search.</p>
    </div>
  ) : (
    <div className="empty">
      <p>Nothing saved yet.</p>
      <p className="muted small">Everything you create — here or through the API — is saved automatically.</p>
    </div>
  );
}

/** The star of the lightbox's work (from the list, which keeps it current). */
export function LightboxStar({
  work,
  onChange,
}: {
  work: SavedWork | undefined;
  onChange: (id: string, starred: boolean) => void;
}) {
  return work ? (
    <StarButton
      workId={work.id}
      starred={work.starred ?? false}
      onChange={(starred) => onChange(work.id, starred)}
      withText
    />
  ) : null;
}

/** "Delete this work?": the work leaves saved works and the library (the API history keeps it, marked removed). */
export function DeleteWorkDialog({
  removal,
}: {
  removal: {
    deleting: SavedWork | undefined;
    deleteState: { busy: boolean; error?: string };
    confirmDelete: () => Promise<void>;
    cancel: () => void;
  };
}) {
  const { deleting } = removal;
  if (!deleting) return null;
  return (
    <ConfirmDialog
      title="Delete this work?"
      message={
        <p>
          “{deleting.prompt.length > 120 ? `${deleting.prompt.slice(0, 120)}…` : deleting.prompt}” leaves your
          saved works and library. The API history keeps a record of it, marked removed.
        </p>
      }
      confirmLabel="Delete"
      danger
      busy={removal.deleteState.busy}
      error={removal.deleteState.error}
      onConfirm={removal.confirmDelete}
      onCancel={removal.cancel}
    />
  );
}
