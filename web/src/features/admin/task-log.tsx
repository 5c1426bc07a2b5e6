import { useRef } from 'react';
import type { z } from 'zod';
import type { TaskLogRow, taskLogPageSchema } from '../../../../src/base/contract/admin-tasks';
import { api } from '../../lib/api';
import { Link, useLocation } from '../../lib/router';
import { LoadMore } from '../../ui/load-more';
import { LoadState } from './admin-kit';
import { useKeysetPages } from './keyset-pages';
import { FailedLastHourLink, TaskFilterForm } from './task-filters';
import {
  anyTaskFilter,
  describeTaskFilters,
  TASK_LOG_PATH,
  type TaskFilters,
  taskApiQuery,
  taskFiltersOf,
  taskLogUrl,
} from './task-query';
import { TaskRows } from './task-rows';

type TaskLogPage = z.output<typeof taskLogPageSchema>;

/** A page of the log from the admin API. */
async function fetchTasks(query: string, cursor: string | undefined, signal: AbortSignal) {
  const filters = taskFiltersOf(new URLSearchParams(query));
  const page = await api.get<TaskLogPage>(`/api/admin/v1/tasks?${taskApiQuery(filters, cursor)}`, {
    signal,
  });
  return { items: page.tasks, next: page.next_cursor };
}

/** What an empty log says: what was searched, and the way back to every task. */
function NoTasks({ filters }: { filters: TaskFilters }) {
  if (!anyTaskFilter(filters))
    return (
      <div className="empty">
        <p>No task has been created yet.</p>
      </div>
    );
  return (
    <div className="empty">
      <p>No task matches {describeTaskFilters(filters)}.</p>
      <p>
        <Link href={TASK_LOG_PATH}>Show every task</Link>
      </p>
    </div>
  );
}

/** The count line above the rows. */
function Shown({ tasks, more }: { tasks: TaskLogRow[]; more: boolean }) {
  const count = tasks.length === 1 ? '1 task' : `${tasks.length.toLocaleString('en')} tasks`;
  return (
    <p className="small muted" aria-live="polite">
      {more ? `The newest ${count} shown; more below.` : `${count}.`}
    </p>
  );
}

/**
 * The task log: every task of every account, newest first, filtered by the URL's query (linkable,
 * reloads to the same rows), a page at a time; each row opens the task's life.
 */
export default function TaskLogPage() {
  const { search } = useLocation();
  const filters = taskFiltersOf(search);
  const query = taskLogUrl(filters).split('?')[1] ?? '';
  const log = useKeysetPages(query, fetchTasks);
  const sentinel = useRef<HTMLDivElement>(null);
  return (
    <div className="admin-page">
      <section className="panel stack" aria-labelledby="tasks-heading">
        <h2 id="tasks-heading">Tasks</h2>
        <p className="small muted">
          Every task of every account, newest first. <FailedLastHourLink />
        </p>
        <TaskFilterForm key={query} initial={filters} />
        <LoadState error={log.items ? undefined : log.error} loading={log.loading && !log.items} />
        {log.items && log.items.length === 0 && <NoTasks filters={filters} />}
        {log.items && log.items.length > 0 && (
          <>
            <Shown tasks={log.items} more={log.more} />
            <TaskRows tasks={log.items} />
          </>
        )}
        {log.items && (
          <LoadMore
            sentinel={sentinel}
            more={log.more}
            loading={log.loading}
            error={log.error}
            onLoadMore={log.loadMore}
          />
        )}
      </section>
    </div>
  );
}
