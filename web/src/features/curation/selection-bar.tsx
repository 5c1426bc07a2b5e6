import { useEffect, useRef, useState } from 'react';
import { DownloadIcon, TrashIcon } from '../../ui/icons';
import { AddToCollectionDialog } from './collections-dialog';
import { type Collections, setMembers, zipUrl } from './curation';
import type { DeferredDelete } from './deferred-delete';
import type { Selection } from './selection';
import { MAX_COMPARED } from './selection';
import './curation.css';

/**
 * What can be done to the selected items: download them as one ZIP (streamed by the server), add
 * their works to a collection, delete their works (with Undo), clear. Works are what a collection or
 * a delete takes; an upload has none (`workIds` leaves it out), so those actions skip it.
 */
export function SelectionBar({
  selection,
  zip,
  workIds,
  collections,
  onDelete,
  onNotice,
  onCompare,
}: {
  selection: Selection;
  zip: { works?: string[]; assets?: string[] };
  workIds: string[];
  collections: Collections;
  onDelete: (workIds: string[]) => void;
  onNotice: (message: string) => void;
  /** Opens the lightbox comparing the selected items (two to MAX_COMPARED); absent: no Compare. */
  onCompare?: (() => void) | undefined;
}) {
  const [adding, setAdding] = useState(false);
  const count = selection.selected.size;
  if (count === 0 && !adding) return null;
  const works = workIds.length;
  return (
    <div className="selection-bar" role="toolbar" aria-label="Selection">
      <p className="selection-count" aria-live="polite">
        {count} selected
      </p>
      <a className="button small" href={zipUrl(zip)} download>
        <DownloadIcon /> Download as ZIP
      </a>
      {onCompare && count >= 2 && (
        <button
          type="button"
          className="button small"
          disabled={count > MAX_COMPARED}
          title={count > MAX_COMPARED ? `Compare up to ${MAX_COMPARED} at once` : undefined}
          onClick={onCompare}
        >
          Compare
        </button>
      )}
      <button type="button" className="button small" disabled={works === 0} onClick={() => setAdding(true)}>
        Add to collection
      </button>
      <button
        type="button"
        className="button small danger-text"
        disabled={works === 0}
        onClick={() => onDelete(workIds)}
      >
        <TrashIcon /> Delete {works === 1 ? 'work' : `${works} works`}
      </button>
      <button type="button" className="button small" onClick={selection.clear} aria-keyshortcuts="Escape">
        Clear
      </button>
      {adding && (
        <AddToCollectionDialog
          collections={collections}
          count={works}
          onClose={() => setAdding(false)}
          onAdd={async (id, name) => {
            await setMembers(id, workIds, true);
            await collections.reload();
            setAdding(false);
            onNotice(`Added ${works === 1 ? '1 work' : `${works} works`} to ${name}`);
          }}
        />
      )}
    </div>
  );
}

/**
 * The selection bar with Delete taking Undo: a delete clears the selection and is only scheduled
 * (`deferred`), its offer to take it back shown below.
 */
export function SelectionBarWithUndo({
  deferred,
  ...bar
}: Omit<Parameters<typeof SelectionBar>[0], 'onDelete'> & { deferred: DeferredDelete }) {
  return (
    <>
      <SelectionBar
        {...bar}
        onDelete={(ids) => {
          bar.selection.clear();
          deferred.schedule(ids, ids.length === 1 ? 'Deleted 1 work' : `Deleted ${ids.length} works`);
        }}
      />
      <UndoToast
        offer={deferred.offer}
        error={deferred.error}
        onUndo={deferred.undo}
        onDismiss={deferred.dismiss}
      />
    </>
  );
}

/** The offer to take a change back (a deletion, works added to a collection), for a few seconds. */
export function UndoToast({
  offer,
  error,
  onUndo,
  onDismiss,
}: {
  /** `undoable: false`: a confirmation with nothing to take back. */
  offer: { label: string; undoable?: boolean } | undefined;
  error: string | undefined;
  onUndo: () => void;
  onDismiss: () => void;
}) {
  const undo = useRef<HTMLButtonElement>(null);
  const offered = useRef(false);
  // The Delete button left with the selection bar: focus goes to Undo, and when the offer ends with
  // focus still in it (now gone), to the page's heading, never to <body>.
  useEffect(() => {
    if (offer) undo.current?.focus();
    else if (offered.current && document.activeElement === document.body)
      document.querySelector<HTMLElement>('h1[tabindex]')?.focus();
    offered.current = offer !== undefined;
  }, [offer]);
  return (
    <div className="undo-toast-region" role="status" aria-live="polite">
      {offer && (
        <div className="undo-toast">
          <span>{offer.label}</span>
          {offer.undoable !== false && (
            <button type="button" className="button small" onClick={onUndo} ref={undo}>
              Undo
            </button>
          )}
          <button type="button" className="icon-button" onClick={onDismiss} aria-label="Dismiss">
            ×
          </button>
        </div>
      )}
      {!offer && error && <p className="error-text">{error}</p>}
    </div>
  );
}
