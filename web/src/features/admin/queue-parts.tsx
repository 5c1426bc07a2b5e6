import type { AdminQueue, AdminQueuePool, AdminQueueRoute } from '../../../../src/base/contract/admin-queue';
import { AdminTable, HeadRow, num, when } from './admin-kit';

type Hold = AdminQueuePool['hold'];

const HOLD_WORDS: Record<NonNullable<Hold>['reason'], string> = {
  rate_limit_refusal: 'refused upstream (Retry-After)',
  request_budget: 'request budget spent',
  per_minute_limit: 'calls per minute (catalog)',
  configured_limit: 'calls at once (catalog)',
  learned_limit: 'calls at once (learned)',
  circuit_open: 'circuit open (this node)',
};

/** What a cancel is about to take, for its confirmation. */
export type CancelAsk =
  | { scope: 'route'; route: string; count: number }
  | { scope: 'account'; accountId: string; email: string; count: number }
  | { scope: 'task'; taskId: string; unfinished: boolean };

/** A figure with its thousands separated. */
export const figure = (n: number) => n.toLocaleString('en');

/** "12 tasks", "1 task". */
export const tasks = (n: number) => `${figure(n)} ${n === 1 ? 'task' : 'tasks'}`;

/** A hold in words: why, and until when. */
export function HoldText({ hold }: { hold: Hold }) {
  if (!hold) return <>—</>;
  const until = hold.until === null ? 'until a call ends' : `until ${when(hold.until)}`;
  return (
    <span className="badge state-bad">
      {HOLD_WORDS[hold.reason]}, {until}
    </span>
  );
}

/** An account's queued tasks on every route (what its cancel takes), from the accounts listed. */
export function queuedOfAccount(queue: AdminQueue, accountId: string): number {
  let sum = 0;
  for (const route of queue.routes)
    for (const account of route.accounts) if (account.account_id === accountId) sum += account.queued;
  return sum;
}

/** The route's capacity pools: limits, calls, parked tasks and what holds each. */
function PoolsTable({ route }: { route: AdminQueueRoute }) {
  if (route.pools.length === 0)
    return <p className="small muted">No capacity pool: its calls are not gated (or none was made yet).</p>;
  return (
    <AdminTable
      caption={`Capacity pools of ${route.route}`}
      head={
        <HeadRow
          columns={[
            'Key',
            num('Limit'),
            num('In flight'),
            num('Parked'),
            num('Called back'),
            num('Calls (last minute)'),
            num('Refused'),
            'Held',
          ]}
        />
      }
    >
      {route.pools.map((pool) => (
        <tr key={pool.pool}>
          <td>
            <code>{pool.key}</code>
            {pool.key_names.length > 0 && <span className="small muted"> {pool.key_names.join(', ')}</span>}
          </td>
          <td className="num">{limitText(pool)}</td>
          <td className="num">{figure(pool.in_flight)}</td>
          <td className="num">{figure(pool.parked)}</td>
          <td className="num">{figure(pool.called_back)}</td>
          <td className="num">{figure(pool.calls_in_window)}</td>
          <td className="num">{figure(pool.refused_in_window)}</td>
          <td>
            <HoldText hold={pool.hold} />
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}

/** A pool's limits in words: the catalog's, and the learned one. */
function limitText(pool: AdminQueuePool): string {
  const parts = [
    pool.max_in_flight === null ? undefined : `${pool.max_in_flight} at once`,
    pool.per_minute === null ? undefined : `${pool.per_minute}/min`,
    pool.learned_limit === null ? undefined : `learned ${pool.learned_limit}`,
  ].filter(Boolean);
  return parts.join(', ') || 'none';
}

/** The route's accounts: waiting, in flight, their shares, and a cancel of each one's queued tasks. */
function AccountsTable({
  route,
  queue,
  busy,
  onCancel,
}: {
  route: AdminQueueRoute;
  queue: AdminQueue;
  busy: boolean;
  onCancel: (ask: CancelAsk) => void;
}) {
  if (route.accounts.length === 0) return null;
  return (
    <AdminTable
      caption={`Accounts on ${route.route}`}
      head={
        <HeadRow
          columns={[
            'Account',
            num('Waiting'),
            num('In flight'),
            num('Share of waiting'),
            num(`Next turns (of ${route.turns_counted})`),
            { name: 'Actions', hidden: true },
          ]}
        />
      }
    >
      {route.accounts.map((account) => {
        const queued = queuedOfAccount(queue, account.account_id);
        const email = account.email ?? account.account_id;
        return (
          <tr key={account.account_id}>
            <td>{email}</td>
            <td className="num">{figure(account.waiting)}</td>
            <td className="num">{figure(account.in_flight)}</td>
            <td className="num">{Math.round(account.waiting_share * 100)}%</td>
            <td className="num">{figure(account.next_turns)}</td>
            <td>
              <button
                type="button"
                className="button small"
                disabled={busy || queued === 0}
                aria-label={`Cancel queued tasks of ${email}`}
                onClick={() =>
                  onCancel({ scope: 'account', accountId: account.account_id, email, count: queued })
                }
              >
                Cancel queued
              </button>
            </td>
          </tr>
        );
      })}
    </AdminTable>
  );
}

/** One route: its counts, its pools, its accounts, and the cancel of its queued tasks. */
export function RouteCard({
  route,
  queue,
  busy,
  onCancel,
}: {
  route: AdminQueueRoute;
  queue: AdminQueue;
  busy: boolean;
  onCancel: (ask: CancelAsk) => void;
}) {
  const headingId = `route-${route.route.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const { waiting, in_flight: inFlight } = route;
  return (
    <section className="panel stack" aria-labelledby={headingId} data-route={route.route}>
      <div className="row between">
        <h3 id={headingId}>
          <code>{route.route}</code>
        </h3>
        <button
          type="button"
          className="button small"
          disabled={busy || route.queued === 0}
          onClick={() => onCancel({ scope: 'route', route: route.route, count: route.queued })}
        >
          Cancel its queued tasks
        </button>
      </div>
      <div className="admin-figures">
        <span>
          <strong>{figure(waiting.total)}</strong> waiting: {figure(waiting.capacity)} for a slot,{' '}
          {figure(waiting.turn)} for a turn, {figure(waiting.retry)} to retry
        </span>
        <span>
          <strong>{figure(inFlight.total)}</strong> in flight: {figure(inFlight.working)} with a worker,{' '}
          {figure(inFlight.upstream)} upstream
        </span>
      </div>
      <p className="small muted">
        {route.oldest_created_at !== null && <>Oldest waiting since {when(route.oldest_created_at)}.</>}
        {route.next_retry_at !== null && <> Next retry {when(route.next_retry_at)}.</>}
        {route.hold && (
          <>
            {' '}
            <HoldText hold={route.hold} />
          </>
        )}
      </p>
      <PoolsTable route={route} />
      <AccountsTable route={route} queue={queue} busy={busy} onCancel={onCancel} />
      {route.accounts_omitted > 0 && (
        <p className="small muted">and {figure(route.accounts_omitted)} more accounts.</p>
      )}
    </section>
  );
}
