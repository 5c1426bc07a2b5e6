import { type ReactNode, useEffect, useState } from 'react';
import type { TaskLife } from '../../../../src/base/contract/admin-tasks';
import { ApiRequestError, api } from '../../lib/api';
import { Link } from '../../lib/router';
import { useAction } from '../../lib/use-action';
import { LoadState } from './admin-kit';
import { duration, instant } from './log-format';
import { taskLogUrl } from './task-query';
import { accountText, costText, StatusBadge } from './task-rows';
import { Timeline } from './task-timeline';

const BACK = (
  <p>
    <Link href="/admin/tasks">← All tasks</Link>
  </p>
);

/** Its key facts, as a list of terms: who, what, where, how long, how much. */
function Facts({ life }: { life: TaskLife }) {
  const { task, upstream, admission } = life;
  const account = `/admin/accounts/${encodeURIComponent(task.account_id)}`;
  const facts: Array<[string, ReactNode]> = [
    ['Status', <StatusBadge key="status" status={task.status} />],
    [
      'Account',
      <>
        <Link href={account}>{accountText(task)}</Link> ·{' '}
        <Link href={taskLogUrl({ account: task.account_id })}>its tasks</Link>
      </>,
    ],
    ['API key', task.api_key_id ?? 'none (the website)'],
    ['Model', <code key="model">{task.model}</code>],
    ['Route', `${task.route} (provider ${task.provider})`],
    ['Created', instant(task.created_at)],
    ['First submitted', instant(task.started_at)],
    ['Finished', instant(task.finished_at)],
    ['Cost', costText(task)],
    ['Queue wait', duration(task.queue_wait_ms)],
    ['Upstream time', duration(task.upstream_ms)],
    ['Attempts on this route', task.attempts],
    ['Refusals (429)', task.refusals],
    ['Fallbacks', task.fallbacks],
    ['Polls', upstream.polls],
    ['Upstream job', upstream.upstream_id ?? '—'],
    ['Upstream key', upstream.upstream_key_id ?? '—'],
    ['Generation', <code key="generation">{task.generation_id}</code>],
    // The trace in the operator's tracing tool (OpenTelemetry): search it by this id.
    ['Trace', life.trace ? <code key="trace">{life.trace.trace_id}</code> : 'not traced'],
    [
      'Prompt',
      <span key="prompt" className="task-prompt">
        {admission.prompt}
      </span>,
    ],
  ];
  return (
    <dl className="admin-facts">
      {facts.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** What the timeline cannot show, said once under it. */
function Gaps({ life }: { life: TaskLife }) {
  const notes: string[] = [];
  if (life.task.started_at !== null && life.upstream_calls.length === 0)
    notes.push(
      'Its upstream calls are no longer kept (a call is kept for its pool’s window, about a minute).',
    );
  if (life.task.attempts > 1)
    notes.push(`${life.task.attempts} submit attempts on its last route; only the last error is kept.`);
  if (notes.length === 0) return null;
  return <p className="small muted">{notes.join(' ')}</p>;
}

/** "No task": the id is not one of any account's tasks. */
function NoTask({ id }: { id: string }) {
  return (
    <div className="admin-page">
      {BACK}
      <div className="empty" role="status">
        <p>
          No task <code>{id}</code>: no account has a task with this id.
        </p>
      </div>
    </div>
  );
}

/** One task's whole life: its key facts and the timeline of what the engine recorded. */
export default function TaskLifePage({ id }: { id: string }) {
  const [life, setLife] = useState<TaskLife>();
  const [missing, setMissing] = useState(false);
  const load = useAction();
  const run = load.run;
  useEffect(() => {
    setLife(undefined);
    setMissing(false);
    void run(async () => {
      try {
        setLife(await api.get<TaskLife>(`/api/admin/v1/tasks/${encodeURIComponent(id)}`));
      } catch (failure) {
        if (failure instanceof ApiRequestError && failure.status === 404) setMissing(true);
        else throw failure;
      }
    });
  }, [run, id]);

  if (missing) return <NoTask id={id} />;
  if (!life)
    return (
      <div className="admin-page">
        {BACK}
        <LoadState error={load.error} loading={load.busy} />
      </div>
    );
  return (
    <div className="admin-page">
      {BACK}
      <section className="panel stack" aria-labelledby="task-heading">
        <h2 id="task-heading">
          Task <code>{life.task.id}</code>
        </h2>
        {life.task.error && (
          <p className="error-text task-error">
            <strong>Error:</strong> {life.task.error}
          </p>
        )}
        <Facts life={life} />
      </section>
      <section className="panel stack" aria-labelledby="life-heading">
        <h2 id="life-heading">Its life</h2>
        <Timeline life={life} />
        <Gaps life={life} />
      </section>
    </div>
  );
}
