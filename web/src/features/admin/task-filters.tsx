import { type FormEvent, type MouseEvent, useState } from 'react';
import { Link, navigate } from '../../lib/router';
import { TASK_STATUSES } from '../../lib/vocabulary';
import { FilterButtons, SelectFilter, TextFilter, TimeFilter } from './filter-fields';
import {
  failedLastHourUrl,
  TASK_FILTER_NAMES,
  TASK_LOG_PATH,
  type TaskFilters,
  taskLogUrl,
} from './task-query';

/**
 * "Failed in the last hour": a link whose window is the hour before the click (its `since` is
 * written when it is followed, not when the page was drawn), then kept in the URL as an instant.
 */
export function FailedLastHourLink() {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    navigate(failedLastHourUrl(Date.now()));
  };
  return (
    <Link href={taskLogUrl({ status: 'failed' })} onClick={follow}>
      Failed in the last hour
    </Link>
  );
}

const STATUS_LABELS = Object.fromEntries(TASK_STATUSES.map((status) => [status, status.replace('_', ' ')]));

const TEXT_FILTERS: Array<[Exclude<keyof TaskFilters, 'status' | 'since' | 'until'>, string]> = [
  ['account', 'Account (id or e-mail)'],
  ['key', 'API key id'],
  ['model', 'Model'],
  ['route', 'Route'],
  ['provider', 'Provider'],
  ['error', 'Error contains'],
];

/** The filters as a form: applied on Filter, which puts them in the URL. */
export function TaskFilterForm({ initial }: { initial: TaskFilters }) {
  const [filters, setFilters] = useState<TaskFilters>(initial);
  const set = (name: keyof TaskFilters) => (value: string) => setFilters({ ...filters, [name]: value });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = Object.fromEntries(TASK_FILTER_NAMES.map((name) => [name, filters[name].trim()]));
    navigate(taskLogUrl(trimmed));
  };
  return (
    <form className="admin-filters log-filters" onSubmit={apply} aria-label="Filter tasks">
      {TEXT_FILTERS.map(([name, label]) => (
        <TextFilter key={name} label={label} value={filters[name]} onChange={set(name)} />
      ))}
      <SelectFilter label="Status" value={filters.status} labels={STATUS_LABELS} onChange={set('status')} />
      <TimeFilter label="Created from" value={filters.since} onChange={set('since')} />
      <TimeFilter label="Created before" value={filters.until} onChange={set('until')} />
      <FilterButtons clearHref={TASK_LOG_PATH} />
    </form>
  );
}
