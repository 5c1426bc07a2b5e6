import type { TaskLogRow } from '../../../../src/base/contract/admin-tasks';
import { Link } from '../../lib/router';
import { AdminTable, HeadRow, num, usd } from './admin-kit';
import { duration, shorten, stamp } from './log-format';

/** The console's page of one task. */
export const taskPath = (id: string) => `/admin/tasks/${encodeURIComponent(id)}`;

/** A task's status as a badge: failed in the danger colour, completed in the success one. */
export function StatusBadge({ status }: { status: TaskLogRow['status'] }) {
  const tone = status === 'failed' ? ' state-bad' : status === 'completed' ? ' state-good' : '';
  return <span className={`badge${tone}`}>{status.replace('_', ' ')}</span>;
}

/** What a task cost, and what the operator absorbed beyond its quote; a dash when nothing is known. */
export function costText(task: Pick<TaskLogRow, 'cost_micros' | 'absorbed_micros'>): string {
  if (task.cost_micros === null) return '—';
  const absorbed = task.absorbed_micros ? ` (+${usd(task.absorbed_micros)} absorbed)` : '';
  return `${usd(task.cost_micros)}${absorbed}`;
}

/** The account a task belongs to: its e-mail (its id when the account is gone). */
export const accountText = (task: TaskLogRow) => task.account_email ?? task.account_id;

/** A row's link to the task's life: its time, and its id for screen readers. */
function TaskLink({ task }: { task: TaskLogRow }) {
  const time = stamp(task.created_at);
  return (
    <Link href={taskPath(task.id)} aria-label={`${time}, task ${task.id}`}>
      {time}
    </Link>
  );
}

/** The log as a table, for wide screens (the provider is the first part of the route). */
function TaskTable({ tasks }: { tasks: TaskLogRow[] }) {
  return (
    <AdminTable
      caption="Tasks, newest first"
      head={
        <HeadRow
          columns={[
            'Created',
            'Account',
            'Model / route',
            'Status',
            num('Cost'),
            num('Queue wait'),
            num('Upstream'),
            num('Attempts'),
            num('Refusals'),
            'Error',
          ]}
        />
      }
    >
      {tasks.map((task) => (
        <tr key={task.id}>
          <td>
            <TaskLink task={task} />
          </td>
          <td className="task-account">{accountText(task)}</td>
          <td>
            <code>{task.model}</code>
            <div className="small muted">{task.route}</div>
          </td>
          <td>
            <StatusBadge status={task.status} />
          </td>
          <td className="num">{costText(task)}</td>
          <td className="num">{duration(task.queue_wait_ms)}</td>
          <td className="num">{duration(task.upstream_ms)}</td>
          <td className="num">{task.attempts}</td>
          <td className="num">{task.refusals}</td>
          <td className="task-error">{task.error ? shorten(task.error, 60) : ''}</td>
        </tr>
      ))}
    </AdminTable>
  );
}

/** The log as a list of cards, for narrow screens: every column as a labelled line. */
function TaskList({ tasks }: { tasks: TaskLogRow[] }) {
  return (
    <ol className="task-log-list" aria-label="Tasks, newest first">
      {tasks.map((task) => (
        <li key={task.id}>
          <div className="row between">
            <TaskLink task={task} />
            <StatusBadge status={task.status} />
          </div>
          <div className="task-log-account">{accountText(task)}</div>
          <div className="small">
            <code>{task.model}</code> on {task.route}
          </div>
          <div className="small muted">
            Cost {costText(task)} · waited {duration(task.queue_wait_ms)} · upstream{' '}
            {duration(task.upstream_ms)} · {task.attempts} attempts · {task.refusals} refusals
          </div>
          {task.error && <div className="small task-error">{shorten(task.error, 120)}</div>}
        </li>
      ))}
    </ol>
  );
}

/** The log's rows: a table on wide screens, a list on narrow ones (CSS shows one of the two). */
export function TaskRows({ tasks }: { tasks: TaskLogRow[] }) {
  return (
    <>
      <div className="wide-only">
        <TaskTable tasks={tasks} />
      </div>
      <div className="narrow-only">
        <TaskList tasks={tasks} />
      </div>
    </>
  );
}
