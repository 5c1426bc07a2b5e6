import { type FormEvent, useState } from 'react';
import type { ProviderKeysWire, ProviderKeyWire } from '../../../../src/base/contract/admin-provider-keys';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { Field, FormOutcome } from '../../ui/form-fields';
import { AdminTable, HeadRow, num, usd, when } from './admin-kit';

const PATH = '/api/admin/v1/provider-keys';

const STATUS_WORDS: Record<ProviderKeyWire['status'], string> = {
  in_service: 'in service',
  disabled: 'disabled',
  invalid_key: 'out: invalid key',
  no_quota: 'out: no quota left',
};

const keyPath = (key: ProviderKeyWire) =>
  `${PATH}/${encodeURIComponent(key.provider)}/${encodeURIComponent(key.name)}`;

/** Adds a key to a provider's pool: the key is sent this once and never shown again. */
function AddKey({ onAdded }: { onAdded: () => void }) {
  const [provider, setProvider] = useState('openai');
  const [name, setName] = useState('');
  const [secret, setSecret] = useState('');
  const [weight, setWeight] = useState('1');
  const [project, setProject] = useState('');
  const [limit, setLimit] = useState('');
  const state = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void state.run(async () => {
      await api.post(PATH, {
        provider,
        name,
        key: secret,
        weight: Number(weight),
        ...(project.trim() ? { project: project.trim() } : {}),
        ...(limit.trim() ? { max_in_flight: Number(limit) } : {}),
      });
      setSecret('');
      setName('');
      onAdded();
      return `Key ${name} added to the ${provider} pool.`;
    });
  };
  const text = (label: string, value: string, set: (v: string) => void, type = 'text', required = false) => (
    <Field
      label={label}
      control={(id) => (
        <input
          id={id}
          type={type}
          required={required}
          autoComplete="off"
          value={value}
          onChange={(event) => set(event.target.value)}
        />
      )}
    />
  );
  return (
    <form className="stack" onSubmit={submit} aria-label="Add an upstream key">
      <div className="admin-filters">
        {text('Provider', provider, setProvider, 'text', true)}
        {text('Name', name, setName, 'text', true)}
        {text('Key (never shown again)', secret, setSecret, 'password', true)}
        {text('Weight', weight, setWeight, 'number', true)}
        {text('Project (optional)', project, setProject)}
        {text('Calls at once (optional)', limit, setLimit, 'number')}
        <button type="submit" className="button primary" disabled={state.busy}>
          {state.busy ? 'Adding…' : 'Add key'}
        </button>
      </div>
      <FormOutcome error={state.error} done={state.done} />
    </form>
  );
}

/** Every key of every upstream pool, with its pool's figures and the operator's actions. */
export function KeyPools({
  state,
  onChanged,
}: {
  state: ProviderKeysWire | undefined;
  onChanged: () => void;
}) {
  const action = useAction();
  const act = (what: string, work: () => Promise<unknown>) =>
    void action.run(async () => {
      await work();
      onChanged();
      return what;
    });
  return (
    <section className="panel stack" aria-labelledby="keys-heading">
      <h2 id="keys-heading">Upstream keys</h2>
      <p className="small muted">
        Each provider's pool of keys, shared by every node. Tasks spread over the keys in service by weight
        and free capacity; keys of one project share one capacity pool. A key answered "invalid key" or "no
        quota left" is taken out until you enable it or its re-check (one call after a backoff) passes.
      </p>
      {state && state.keys.length === 0 && (
        <p>No upstream key yet: add one below, or set ATELIER_…_API_KEY.</p>
      )}
      {state && state.keys.length > 0 && (
        <AdminTable
          caption="Upstream keys"
          head={
            <HeadRow
              columns={[
                'Provider',
                'Name',
                'Status',
                num('Weight'),
                'Project',
                num('Capacity'),
                num('In flight'),
                num('Waiting'),
                num('Refusals'),
                num('Spend (30 days)'),
                'Last error',
                'Actions',
              ]}
            />
          }
        >
          {state.keys.map((key) => (
            <tr key={key.id} data-key={`${key.provider}/${key.name}`}>
              <td>{key.provider}</td>
              <td>
                {key.name}
                {key.source === 'env' && <span className="small muted"> (environment)</span>}
              </td>
              <td>
                <span className={key.status === 'in_service' ? 'badge state-good' : 'badge state-bad'}>
                  {STATUS_WORDS[key.status]}
                </span>
                {key.recheck_at !== null && key.status !== 'disabled' && (
                  <span className="small muted"> re-check {when(key.recheck_at)}</span>
                )}
              </td>
              <td className="num">{key.weight}</td>
              <td>{key.project ?? '—'}</td>
              <td className="num">{key.capacity ?? 'learning'}</td>
              <td className="num">{key.in_flight}</td>
              <td className="num">{key.waiting}</td>
              <td className="num">{key.refusals}</td>
              <td className="num">{usd(key.spend_micros)}</td>
              <td className="small">
                {key.last_error ? `${when(key.last_error_at)}: ${key.last_error}` : '—'}
              </td>
              <td>
                <button
                  type="button"
                  className="button small"
                  disabled={action.busy}
                  onClick={() =>
                    act(
                      `${key.name} ${key.status === 'in_service' ? 'disabled' : 'put back in service'}.`,
                      () => api.patch(keyPath(key), { enabled: key.status !== 'in_service' }),
                    )
                  }
                >
                  {key.status === 'in_service' ? 'Disable' : 'Put back'}
                </button>
                {key.source === 'stored' && (
                  <button
                    type="button"
                    className="button small"
                    disabled={action.busy}
                    onClick={() => {
                      if (window.confirm(`Remove the ${key.provider} key ${key.name}?`))
                        act(`${key.name} removed.`, () => api.delete(keyPath(key)));
                    }}
                  >
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </AdminTable>
      )}
      <FormOutcome error={action.error} done={action.done} />
      <AddKey onAdded={onChanged} />
    </section>
  );
}
