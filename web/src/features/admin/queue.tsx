import { type FormEvent, useCallback, useEffect, useState } from 'react';
import type { AdminQueue, AdminQueueCanceled } from '../../../../src/base/contract/admin-queue';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';
import { ConfirmDialog } from '../../ui/dialog';
import { Field, FormOutcome } from '../../ui/form-fields';
import { LoadState, when } from './admin-kit';
import { type CancelAsk, figure, RouteCard, tasks } from './queue-parts';

/** How often the page reads the queue again while it is shown. */
const REFRESH_MS = 5000;

/** The cancel request of an ask. */
function bodyOf(ask: CancelAsk) {
  if (ask.scope === 'route') return { route: ask.route };
  if (ask.scope === 'account') return { account_id: ask.accountId };
  return { task_id: ask.taskId, status: ask.unfinished ? 'unfinished' : 'queued' };
}

/** The confirmation's question: what is canceled, and how many tasks. */
function question(ask: CancelAsk): { title: string; message: string } {
  if (ask.scope === 'route')
    return {
      title: `Cancel ${tasks(ask.count)} on ${ask.route}?`,
      message: `This cancels the ${tasks(ask.count)} queued on ${ask.route}, of every account (as of the last read). Each ends failed with "Canceled by an operator"; their callers see it and their webhooks fire. It cannot be undone.`,
    };
  if (ask.scope === 'account')
    return {
      title: `Cancel ${tasks(ask.count)} of ${ask.email}?`,
      message: `This cancels the ${tasks(ask.count)} queued of ${ask.email}, on every route (as of the last read). Each ends failed with "Canceled by an operator"; the account sees it and its webhooks fire. It cannot be undone.`,
    };
  return {
    title: 'Cancel 1 task?',
    message: `This cancels the task ${ask.taskId}${ask.unfinished ? ', even in progress (its result is then never stored)' : ' if it is still queued'}. It ends failed with "Canceled by an operator". It cannot be undone.`,
  };
}

/** Cancel one task by its id (from the task log, or a caller's report). */
function CancelOneTask({ busy, onCancel }: { busy: boolean; onCancel: (ask: CancelAsk) => void }) {
  const [taskId, setTaskId] = useState('');
  const [unfinished, setUnfinished] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (taskId.trim()) onCancel({ scope: 'task', taskId: taskId.trim(), unfinished });
  };
  return (
    <form className="admin-filters" onSubmit={submit} aria-label="Cancel one task">
      <Field
        label="Task id"
        control={(id) => (
          <input
            id={id}
            required
            autoComplete="off"
            placeholder="tsk_…"
            value={taskId}
            onChange={(event) => setTaskId(event.target.value)}
          />
        )}
      />
      <label className="row">
        <input
          type="checkbox"
          checked={unfinished}
          onChange={(event) => setUnfinished(event.target.checked)}
        />
        also if in progress
      </label>
      <button type="submit" className="button" disabled={busy}>
        Cancel task
      </button>
    </form>
  );
}

/** What waits and runs per route and pool (every node), why it waits, and the operator's cancels. */
export default function QueuePage() {
  const [queue, setQueue] = useState<AdminQueue>();
  const [asking, setAsking] = useState<CancelAsk>();
  const load = useAction();
  const change = useAction();
  const run = load.run;
  const refresh = useCallback(
    () => run(async () => setQueue(await api.get<AdminQueue>('/api/admin/v1/queue'))),
    [run],
  );
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void refresh();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);
  const confirm = (ask: CancelAsk) => {
    setAsking(undefined);
    void change.run(async () => {
      const done = await api.post<AdminQueueCanceled>('/api/admin/v1/queue/cancel', bodyOf(ask));
      await refresh();
      return `${tasks(done.canceled)} canceled.`;
    });
  };
  const busy = change.busy;
  return (
    <div className="admin-page">
      <section className="panel stack" aria-labelledby="queue-heading">
        <div className="row between">
          <h2 id="queue-heading">Queue</h2>
          <button type="button" className="button small" onClick={() => void refresh()}>
            Refresh
          </button>
        </div>
        <p className="small muted">
          Every node's unfinished tasks, per route and capacity pool, from the database; circuit breakers are
          this node's. Read {queue ? when(queue.now) : '…'}. The page reads again every {REFRESH_MS / 1000}{' '}
          seconds.
        </p>
        <LoadState error={load.error} loading={load.busy && !queue} />
        {queue && (
          <div className="admin-figures">
            <div>
              <strong>{figure(queue.totals.waiting)}</strong> waiting
            </div>
            <div>
              <strong>{figure(queue.totals.in_flight)}</strong> in flight
            </div>
            <div>
              <strong>{figure(queue.totals.queued)}</strong> queued
            </div>
            <div>
              <strong>{figure(queue.totals.in_progress)}</strong> in progress
            </div>
          </div>
        )}
        <CancelOneTask busy={busy} onCancel={setAsking} />
        <FormOutcome error={change.error} done={change.done} />
      </section>
      {queue && queue.routes.length === 0 && (
        <p className="panel">Nothing waits: no unfinished task, and no capacity pool yet.</p>
      )}
      {queue?.routes.map((route) => (
        <RouteCard key={route.route} route={route} queue={queue} busy={busy} onCancel={setAsking} />
      ))}
      {asking && (
        <ConfirmDialog
          {...question(asking)}
          confirmLabel={asking.scope === 'task' ? 'Cancel task' : `Cancel ${tasks(asking.count)}`}
          danger
          onConfirm={() => confirm(asking)}
          onCancel={() => setAsking(undefined)}
        />
      )}
    </div>
  );
}
