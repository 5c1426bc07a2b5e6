import type { ReactNode } from 'react';
import type { TaskLife } from '../../../../src/base/contract/admin-tasks';
import { formatBytes } from '../../lib/format';
import { usd } from './admin-kit';
import { duration, instant } from './log-format';

/** One moment of a task's life: when, what, and what went wrong (a refusal, a failure). */
interface Moment {
  /** Unique in the life (a stage's name, a call's or a delivery's id). */
  key: string;
  at: number;
  title: string;
  detail?: ReactNode;
  bad?: boolean;
}

const WAITS: Record<string, string> = {
  upstream_capacity: 'a free slot of its capacity pool',
  upstream_queue: "the upstream's own queue",
};

/** Its admission: the request it came with. */
function admission(life: TaskLife): Moment {
  const a = life.admission;
  const quote = a.quote_cap_micros === null ? 'no quote' : `quoted at most ${usd(a.quote_cap_micros)}`;
  return {
    key: 'admission',
    at: a.created_at,
    title: `Admitted from the ${a.source === 'web' ? 'website' : 'API'}`,
    detail: (
      <>
        {a.mode}, {a.image_size}, image {a.index + 1} of {a.image_count}; {quote}
        {a.reserved_micros > 0 ? `; ${usd(a.reserved_micros)} reserved against budgets` : ''}
      </>
    ),
  };
}

/** Its first submit upstream, after its wait in the queue. */
function firstSubmit(life: TaskLife): Moment[] {
  const { task } = life;
  if (task.started_at === null) return [];
  return [
    {
      key: 'submit',
      at: task.started_at,
      title: 'Submitted upstream',
      detail: `after ${duration(task.queue_wait_ms)} in the queue (waits for capacity included), on ${task.route}`,
    },
  ];
}

/** Each upstream call still kept: refused, answered, or in flight; a call after the first is a retry. */
function calls(life: TaskLife): Moment[] {
  return life.upstream_calls.map((call, i) => ({
    key: call.id,
    at: call.started_at,
    title: `${i === 0 ? 'Upstream call' : 'Upstream call (retry)'} to ${call.pool}`,
    detail:
      call.ended_at === null
        ? 'in flight'
        : call.refused
          ? `refused (429) after ${duration(call.duration_ms)}`
          : `answered in ${duration(call.duration_ms)}`,
    bad: call.refused,
  }));
}

/** Each move to a next route, with the failure that moved it. */
function fallbacks(life: TaskLife): Moment[] {
  return life.fallbacks.map((move, i) => ({
    key: `fallback-${i}`,
    at: move.at,
    title: `Fell back from ${move.from} to ${move.to}`,
    detail: move.error,
    bad: true,
  }));
}

/** Its stored result. */
function storage(life: TaskLife): Moment[] {
  const stored = life.storage;
  if (!stored) return [];
  const size = stored.width && stored.height ? `${stored.width}×${stored.height}, ` : '';
  return [
    {
      key: 'storage',
      at: stored.created_at,
      title: 'Result stored',
      detail: (
        <>
          {size}
          {stored.content_type}, {formatBytes(stored.bytes)} as <code>{stored.blob_key}</code>
          {stored.url && (
            <>
              {' '}
              (<a href={stored.url}>open</a>)
            </>
          )}
        </>
      ),
    },
  ];
}

/** Its end: completed, or failed with its error. */
function end(life: TaskLife): Moment[] {
  const { task } = life;
  if (task.finished_at === null) return [];
  const failed = task.status === 'failed';
  return [
    {
      key: 'end',
      at: task.finished_at,
      title: failed ? 'Failed' : 'Completed',
      detail: failed
        ? (task.error ?? 'no error recorded')
        : task.upstream_ms === null
          ? undefined
          : `after ${duration(task.upstream_ms)} upstream`,
      bad: failed,
    },
  ];
}

/** Each webhook delivery: its state, attempts and last answer. */
function webhooks(life: TaskLife): Moment[] {
  return life.webhooks.map((delivery) => {
    const answer =
      delivery.last_status_code === null ? 'no answer yet' : `last answer HTTP ${delivery.last_status_code}`;
    const delivered = delivery.delivered_at === null ? '' : `, delivered ${instant(delivery.delivered_at)}`;
    return {
      key: delivery.id,
      at: delivery.created_at,
      title: `Webhook ${delivery.type} to ${delivery.url}`,
      detail: `${delivery.state} after ${delivery.attempts} attempts, ${answer}${delivered}${delivery.last_error ? ` — ${delivery.last_error}` : ''}`,
      bad: delivery.state === 'failed',
    };
  });
}

/** What it waits for now, if it is unfinished. */
function waiting(life: TaskLife): Moment[] {
  const c = life.capacity;
  if (c.waiting_for === null) return [];
  const position = c.upstream_queue_position === null ? '' : `, #${c.upstream_queue_position} there`;
  const next = c.next_run_at === null ? '' : `; runs next ${instant(c.next_run_at)}`;
  return [
    {
      key: 'waiting',
      at: c.waiting_since ?? life.task.created_at,
      title: `Waiting for ${WAITS[c.waiting_for] ?? c.waiting_for}`,
      detail: `${c.pool ? `pool ${c.pool}` : 'no pool named'}${position}${next}`,
    },
  ];
}

/** Every moment the engine recorded, in time order (ties keep the order of the life's stages). */
export function momentsOf(life: TaskLife): Moment[] {
  const all = [
    admission(life),
    ...firstSubmit(life),
    ...calls(life),
    ...fallbacks(life),
    ...end(life),
    ...storage(life),
    ...webhooks(life),
    ...waiting(life),
  ];
  return all
    .map((moment, order) => ({ moment, order }))
    .sort((a, b) => a.moment.at - b.moment.at || a.order - b.order)
    .map(({ moment }) => moment);
}

/** A task's life as a timeline: one entry per moment, the time first. */
export function Timeline({ life }: { life: TaskLife }) {
  return (
    <ol className="task-timeline">
      {momentsOf(life).map((moment) => (
        <li key={moment.key} className={moment.bad ? 'bad' : undefined}>
          <time dateTime={new Date(moment.at).toISOString()} className="small muted">
            {instant(moment.at)}
          </time>
          <strong>{moment.title}</strong>
          {moment.detail && <div className="small">{moment.detail}</div>}
        </li>
      ))}
    </ol>
  );
}
