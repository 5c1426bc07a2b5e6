import { useCallback, useEffect, useState } from 'react';
import type { AdminUpstreams } from '../../../../src/contract/admin';
import type { ProviderKeysWire } from '../../../../src/contract/admin-provider-keys';
import { AdminTable, HeadRow, LoadState, num, when } from '../../components/admin/admin-kit';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { KeyPools } from './key-pools';

/** How often the page reads the upstreams again while it is shown. */
const REFRESH_MS = 5000;

const CIRCUIT_WORDS = {
  closed: 'closed (working)',
  open: 'open (failing fast)',
  half_open: 'half-open (probing)',
};

/** The live state of the upstreams: circuit breakers (this node) and capacity pools (every node). */
export default function UpstreamsPage() {
  const [state, setState] = useState<AdminUpstreams>();
  const [keys, setKeys] = useState<ProviderKeysWire>();
  const load = useAction();
  const run = load.run;
  const refresh = useCallback(
    () =>
      run(async () => {
        const [upstreams, pools] = await Promise.all([
          api.get<AdminUpstreams>('/api/admin/v1/upstreams'),
          api.get<ProviderKeysWire>('/api/admin/v1/provider-keys'),
        ]);
        setState(upstreams);
        setKeys(pools);
      }),
    [run],
  );
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void refresh();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  return (
    <div className="admin-page">
      <section className="panel stack" aria-labelledby="circuits-heading">
        <div className="row between">
          <h2 id="circuits-heading">Providers</h2>
          <button type="button" className="button small" onClick={() => void refresh()}>
            Refresh
          </button>
        </div>
        <p className="small muted">
          Circuit breakers are per node: this is the node that answered. Read {state ? when(state.now) : '…'}.
          The page reads again every {REFRESH_MS / 1000} seconds.
        </p>
        <LoadState error={load.error} loading={load.busy && !state} />
        {state && (
          <AdminTable
            caption="Circuit breakers"
            head={<HeadRow columns={['Provider', 'Circuit', num('Failures in a row'), num('Probe in')]} />}
          >
            {state.providers.map((provider) => (
              <tr key={provider.name}>
                <td>{provider.name}</td>
                <td>
                  {provider.circuit ? (
                    <span
                      className={provider.circuit.state === 'closed' ? 'badge state-good' : 'badge state-bad'}
                    >
                      {CIRCUIT_WORDS[provider.circuit.state]}
                    </span>
                  ) : (
                    'none (local renderer)'
                  )}
                </td>
                <td className="num">{provider.circuit?.consecutive_failures ?? '—'}</td>
                <td className="num">
                  {provider.circuit && provider.circuit.probe_in_ms > 0
                    ? `${Math.ceil(provider.circuit.probe_in_ms / 1000)} s`
                    : '—'}
                </td>
              </tr>
            ))}
          </AdminTable>
        )}
      </section>
      <KeyPools state={keys} onChanged={() => void refresh()} />
      <section className="panel stack" aria-labelledby="pools-heading">
        <h2 id="pools-heading">Capacity pools</h2>
        <p className="small muted">
          One per provider, upstream model and key (shown by a hash), shared by every node through the
          database.
        </p>
        {state && state.pools.length === 0 && <p>No upstream call has been made yet.</p>}
        {state && state.pools.length > 0 && (
          <AdminTable
            caption="Pools"
            head={
              <HeadRow
                columns={[
                  'Provider',
                  'Upstream model',
                  'Key',
                  num('Learned limit'),
                  num('In flight'),
                  num('Waiting'),
                  num('Calls (last minute)'),
                  num('Refused (last minute)'),
                  'Held until',
                ]}
              />
            }
          >
            {state.pools.map((pool) => (
              <tr key={`${pool.provider}/${pool.upstream_model}/${pool.key}`}>
                <td>{pool.provider}</td>
                <td>
                  <code>{pool.upstream_model}</code>
                </td>
                <td>
                  <code>{pool.key}</code>
                </td>
                <td className="num">{pool.learned_limit ?? 'none yet'}</td>
                <td className="num">{pool.in_flight}</td>
                <td className="num">{pool.waiting}</td>
                <td className="num">{pool.calls_in_window}</td>
                <td className="num">{pool.refused_in_window}</td>
                <td>{pool.hold_until === null ? '—' : when(pool.hold_until)}</td>
              </tr>
            ))}
          </AdminTable>
        )}
      </section>
    </div>
  );
}
