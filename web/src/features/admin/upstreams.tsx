import { useCallback, useEffect, useState } from 'react';
import type { AdminUpstreams } from '../../../../src/base/contract/admin';
import type { ProviderKeysWire } from '../../../../src/base/contract/admin-provider-keys';
import { api } from '../../lib/api';
import { Link } from '../../lib/router';
import { useAction } from '../../lib/use-action';
import { AdminTable, HeadRow, LoadState, num, when } from './admin-kit';
import { KeyPools } from './key-pools';

/** How often the page reads the upstreams again while it is shown. */
const REFRESH_MS = 5000;

const CIRCUIT_WORDS = {
  closed: 'closed (working)',
  open: 'open (failing fast)',
  half_open: 'half-open (probing)',
};

type ProviderState = AdminUpstreams['providers'][number];

/** Whether any key reaches the provider: one it needs none, the deployment's, or an account's own. */
const reachable = (p: ProviderState) => !p.requires_key || p.deployment_key || p.account_keys > 0;

/** Where the provider's key comes from, in words. */
function keyWords(p: ProviderState): string {
  if (!p.requires_key) return 'none needed';
  const own = p.account_keys === 1 ? "1 account's own" : `${p.account_keys} accounts' own`;
  if (p.deployment_key) return p.account_keys > 0 ? `deployment's; ${own}` : "deployment's";
  return p.account_keys > 0 ? `${own} only` : 'no key';
}

/** The circuit's cell: a provider no key reaches has made no call, so its breaker says nothing. */
function CircuitCell({ provider }: { provider: ProviderState }) {
  if (!provider.circuit) return <>none (local renderer)</>;
  if (!reachable(provider)) return <span className="badge">not in use (no key)</span>;
  const good = provider.circuit.state === 'closed';
  return (
    <span className={good ? 'badge state-good' : 'badge state-bad'}>
      {CIRCUIT_WORDS[provider.circuit.state]}
    </span>
  );
}

/**
 * The unfinished tasks of every provider, with a way to the Queue: an empty list of pools must never
 * read as "nothing is happening" while tasks wait (the local renderer has no pool at all).
 */
function Backlog({ providers }: { providers: ProviderState[] }) {
  const queued = providers.reduce((sum, p) => sum + p.queued, 0);
  const rendering = providers.reduce((sum, p) => sum + p.in_progress, 0);
  if (queued + rendering === 0) return <p>No task is waiting or rendering.</p>;
  return (
    <p>
      <strong>{queued.toLocaleString('en')}</strong> {queued === 1 ? 'task is' : 'tasks are'} queued and{' '}
      <strong>{rendering.toLocaleString('en')}</strong> rendering, on every node:{' '}
      <Link href="/admin/queue">see where they wait and why in the Queue</Link>.
    </p>
  );
}

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
          Queued and rendering count every node's tasks. Circuit breakers are per node: this is the node that
          answered. Read {state ? when(state.now) : '…'}. The page reads again every {REFRESH_MS / 1000}{' '}
          seconds.
        </p>
        <LoadState error={load.error} loading={load.busy && !state} />
        {state && <Backlog providers={state.providers} />}
        {state && (
          <AdminTable
            caption="Circuit breakers"
            head={
              <HeadRow
                columns={[
                  'Provider',
                  'Key',
                  num('Queued'),
                  num('Rendering'),
                  'Circuit',
                  num('Failures in a row'),
                  num('Probe in'),
                ]}
              />
            }
          >
            {state.providers.map((provider) => (
              <tr key={provider.name}>
                <td>{provider.name}</td>
                <td>{keyWords(provider)}</td>
                <td className="num">{provider.queued.toLocaleString('en')}</td>
                <td className="num">{provider.in_progress.toLocaleString('en')}</td>
                <td>
                  <CircuitCell provider={provider} />
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
        {state && state.pools.length === 0 && (
          <p>
            No pool yet: one is made at the first call to an upstream with a key. The local renderer takes
            none; its tasks are counted under Providers and shown in the{' '}
            <Link href="/admin/queue">Queue</Link>.
          </p>
        )}
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
