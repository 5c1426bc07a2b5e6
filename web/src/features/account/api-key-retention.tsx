import { type FormEvent, useState } from 'react';
import type { ApiKeyInfo } from '../../../../src/base/contract/api-keys';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { Dialog } from '../../ui/dialog';
import { Field } from '../../ui/form-fields';

/** A key's retention in a few words (the table's column). */
export function retentionText(key: ApiKeyInfo): string {
  if (key.zero_retention) return 'Stores nothing';
  return key.retention_results_days === null ? 'Account’s' : `${key.retention_results_days} days`;
}

/**
 * A key's own retention (docs/operations.md, Data lifecycle): days its works are kept (empty: the
 * account's), and whether it stores nothing (its images go once fetched, or an hour after they ended).
 * No password: it only concerns the account's own images.
 */
export function KeyRetentionDialog({
  apiKey,
  onSaved,
  onCancel,
}: {
  apiKey: ApiKeyInfo;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const [days, setDays] = useState(apiKey.retention_results_days?.toString() ?? '');
  const [storesNothing, setStoresNothing] = useState(apiKey.zero_retention);
  const saving = useAction();

  const save = (event: FormEvent) => {
    event.preventDefault();
    void saving.run(async () => {
      await api.put<ApiKeyInfo>(`/web/api/account/keys/${encodeURIComponent(apiKey.id)}/retention`, {
        results_days: days.trim() === '' ? null : Number(days),
        zero_retention: storesNothing,
      });
      onSaved();
    });
  };

  return (
    <Dialog title={`Retention of “${apiKey.name}”`} onClose={onCancel}>
      <form className="stack" onSubmit={save}>
        <Field
          label="Keep its works (days; empty: as the account)"
          control={(id) => (
            <input
              id={id}
              type="number"
              min={1}
              max={36500}
              step={1}
              value={days}
              onChange={(event) => setDays(event.target.value)}
              data-autofocus
            />
          )}
        />
        <label className="row">
          <input
            type="checkbox"
            checked={storesNothing}
            onChange={(event) => setStoresNothing(event.target.checked)}
          />
          Store nothing: each image is removed once fetched, or an hour after it is made
        </label>
        {saving.error ? (
          <p className="error-text" role="alert">
            {saving.error}
          </p>
        ) : null}
        <div className="row">
          <button type="submit" className="button primary" disabled={saving.busy}>
            Save
          </button>
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
