import { type FormEvent, useState } from 'react';
import { messageOf } from '../../lib/api';
import type { Collection, Collections } from './curation';

const worksLabel = (n: number) => (n === 1 ? '1 work' : `${n} works`);

/** The name of a new collection, typed in the sidebar (`pending` works dropped on it go in). */
export function NewCollection({
  collections,
  pending,
  onCreated,
  onDone,
}: {
  collections: Collections;
  pending: number;
  onCreated: (collection: Collection) => void;
  onDone: () => void;
}) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const created = await collections.create(name.trim());
      if (pending > 0) onCreated(created);
      onDone();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <form className="sidebar-new" onSubmit={(event) => void submit(event)}>
      <input
        aria-label="Name of the new collection"
        value={name}
        maxLength={100}
        // biome-ignore lint/a11y/noAutofocus: the person just asked for this field.
        autoFocus
        onChange={(event) => setName(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') onDone();
        }}
      />
      <button type="submit" className="button small primary" disabled={!name.trim()}>
        Create
      </button>
      <button type="button" className="button small" onClick={onDone}>
        Cancel
      </button>
      {pending > 0 && <p className="muted small">{worksLabel(pending)} will go in it</p>}
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
