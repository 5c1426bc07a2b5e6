import { type FormEvent, useState } from 'react';
import { messageOf } from '../../lib/api';
import { Dialog } from '../../ui/dialog';
import type { Collections } from './curation';

/** Adds works to a collection: pick one, or name a new one. */
export function AddToCollectionDialog({
  collections,
  count,
  onAdd,
  onClose,
}: {
  collections: Collections;
  count: number;
  onAdd: (collectionId: string, name: string) => Promise<void>;
  onClose: () => void;
}) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };
  const createAndAdd = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const created = await collections.create(name.trim());
      await onAdd(created.id, created.name);
    });
  };
  return (
    <Dialog title={`Add ${count === 1 ? '1 work' : `${count} works`} to a collection`} onClose={onClose}>
      {collections.collections.length > 0 && (
        <ul className="collection-choices">
          {collections.collections.map((collection, index) => (
            <li key={collection.id}>
              <button
                type="button"
                className="button"
                disabled={busy}
                data-autofocus={index === 0 ? true : undefined}
                onClick={() => void run(() => onAdd(collection.id, collection.name))}
              >
                {collection.name} <span className="muted">({collection.count})</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="collection-new" onSubmit={createAndAdd}>
        <label>
          New collection
          <input
            value={name}
            maxLength={100}
            onChange={(event) => setName(event.target.value)}
            data-autofocus={collections.collections.length === 0 ? true : undefined}
          />
        </label>
        <button type="submit" className="button primary" disabled={busy || !name.trim()}>
          Create and add
        </button>
      </form>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}

/** Create, rename and delete collections (their works stay). */
export function ManageCollectionsDialog({
  collections,
  onClose,
  onDeleted,
}: {
  collections: Collections;
  onClose: () => void;
  onDeleted: (id: string) => void;
}) {
  const [names, setNames] = useState<Record<string, string>>({});
  const [fresh, setFresh] = useState('');
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState('');
  const run = async (action: () => Promise<void>, done: string) => {
    setError(undefined);
    try {
      await action();
      setNotice(done);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <Dialog title="Collections" onClose={onClose}>
      <ul className="collection-manage">
        {collections.collections.map((collection) => {
          const value = names[collection.id] ?? collection.name;
          return (
            <li key={collection.id}>
              <form
                onSubmit={(event) => {
                  event.preventDefault();
                  void run(
                    () => collections.rename(collection.id, value.trim()),
                    `Renamed to ${value.trim()}`,
                  );
                }}
              >
                <input
                  aria-label={`Name of ${collection.name}`}
                  value={value}
                  maxLength={100}
                  onChange={(event) => setNames({ ...names, [collection.id]: event.target.value })}
                />
                <span className="muted small">
                  {collection.count === 1 ? '1 work' : `${collection.count} works`}
                </span>
                <button
                  type="submit"
                  className="button small"
                  disabled={!value.trim() || value === collection.name}
                >
                  Rename
                </button>
                <button
                  type="button"
                  className="button small danger-text"
                  onClick={() =>
                    void run(async () => {
                      await collections.remove(collection.id);
                      onDeleted(collection.id);
                    }, `Deleted ${collection.name}`)
                  }
                  aria-label={`Delete collection ${collection.name}`}
                >
                  Delete
                </button>
              </form>
            </li>
          );
        })}
      </ul>
      <form
        className="collection-new"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            await collections.create(fresh.trim());
            setFresh('');
          }, `Created ${fresh.trim()}`);
        }}
      >
        <label>
          New collection
          <input
            value={fresh}
            maxLength={100}
            onChange={(event) => setFresh(event.target.value)}
            data-autofocus
          />
        </label>
        <button type="submit" className="button primary" disabled={!fresh.trim()}>
          Create
        </button>
      </form>
      <p className="visually-hidden" aria-live="polite">
        {notice}
      </p>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}
