import { type FormEvent, useState } from 'react';
import { messageOf } from '../../lib/api';
import { Dialog } from '../../ui/dialog';
import {
  type SmartCollection,
  type SmartCollections,
  type SmartFilters,
  sameFilters,
} from './smart-collections';

/**
 * Saves the current search as a smart collection (`editing` absent), or renames one, gives it the
 * current search instead of its own, or deletes it.
 */
export function SmartCollectionDialog({
  smart,
  editing,
  filters,
  describe,
  onClose,
}: {
  smart: SmartCollections;
  editing: SmartCollection | undefined;
  filters: SmartFilters;
  describe: (filters: SmartFilters) => string;
  onClose: () => void;
}) {
  const [name, setName] = useState(editing?.name ?? filters.q ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      onClose();
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(() =>
      editing
        ? smart.update(editing.id, { name: name.trim() })
        : smart.create(name.trim(), filters).then(() => undefined),
    );
  };
  const filtered = Object.keys(filters).length > 0;
  const replaceable = editing !== undefined && filtered && !sameFilters(editing.filters, filters);
  return (
    <Dialog title={editing ? 'Smart collection' : 'Save this search'} onClose={onClose}>
      <p className="smart-search">
        <span className="muted">Search:</span> {describe(editing?.filters ?? filters)}
      </p>
      <form className="collection-new" onSubmit={submit}>
        <label>
          Name
          <input
            value={name}
            maxLength={100}
            onChange={(event) => setName(event.target.value)}
            data-autofocus
          />
        </label>
        <button
          type="submit"
          className="button primary"
          disabled={busy || !name.trim() || name.trim() === editing?.name}
        >
          {editing ? 'Rename' : 'Save'}
        </button>
      </form>
      {editing && (
        <div className="smart-actions">
          {replaceable && (
            <button
              type="button"
              className="button small"
              disabled={busy}
              onClick={() => void run(() => smart.update(editing.id, { filters }))}
            >
              Use the current search instead ({describe(filters)})
            </button>
          )}
          <button
            type="button"
            className="button small danger-text"
            disabled={busy}
            onClick={() => void run(() => smart.remove(editing.id))}
          >
            Delete smart collection
          </button>
        </div>
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}
