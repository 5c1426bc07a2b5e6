import { type FormEvent, type MouseEvent, useState } from 'react';
import { Link, navigate } from '../../lib/router';
import { TASK_STATUSES } from '../../lib/vocabulary';
import { FilterButtons, SelectFilter, TextFilter, TimeFilter } from './filter-fields';
import { msOfIso, queryOf } from './log-format';

/**
 * The task log's filters, as the page's URL keeps them (so a filtered view can be linked and reloads
 * to the same rows): the admin API's names, with `since` and `until` as ISO instants (absolute, so a
 * link shows the same window whenever it is opened).
 */
export const TASK_FILTER_NAMES = [
  'account',
  'key',
  'model',
  'route',
  'provider',
  'status',
  'since',
  'until',
  'error',
] as const;
export type TaskFilters = Record<(typeof TASK_FILTER_NAMES)[number], string>;

export const TASK_LOG_PATH = '/admin/tasks';
const HOUR = 3_600_000;

/** The filters a URL's query holds (absent ones empty). */
export function taskFiltersOf(search: URLSearchParams): TaskFilters {
  const entries = TASK_FILTER_NAMES.map((name) => [name, search.get(name)?.trim() ?? '']);
  return Object.fromEntries(entries) as TaskFilters;
}

/** The console's URL of the log with these filters. */
export function taskLogUrl(filters: Partial<TaskFilters>): string {
  const query = queryOf(filters);
  return query ? `${TASK_LOG_PATH}?${query}` : TASK_LOG_PATH;
}

/** The admin API's query for these filters (times as epoch ms), and the page after `cursor`. */
export function taskApiQuery(filters: TaskFilters, cursor?: string): string {
  return queryOf({
    ...filters,
    since: msOfIso(filters.since),
    until: msOfIso(filters.until),
    limit: 50,
    cursor,
  });
}

/** Whether any filter is set. */
export const anyTaskFilter = (filters: TaskFilters) => TASK_FILTER_NAMES.some((name) => filters[name]);

/** The filters in words, for the empty state ("status failed, error contains “timeout”"). */
export function describeTaskFilters(filters: TaskFilters): string {
  const words: Record<keyof TaskFilters, (value: string) => string> = {
    account: (v) => `account “${v}”`,
    key: (v) => `key ${v}`,
    model: (v) => `model ${v}`,
    route: (v) => `route ${v}`,
    provider: (v) => `provider ${v}`,
    status: (v) => `status ${v.replace('_', ' ')}`,
    since: (v) => `created from ${new Date(v).toLocaleString('en')}`,
    until: (v) => `created before ${new Date(v).toLocaleString('en')}`,
    error: (v) => `error contains “${v}”`,
  };
  return TASK_FILTER_NAMES.filter((name) => filters[name])
    .map((name) => words[name](filters[name]))
    .join(', ');
}

/**
 * "Failed in the last hour": a link whose window is the hour before the click (its `since` is
 * written when it is followed, not when the page was drawn), then kept in the URL as an instant.
 */
export function FailedLastHourLink() {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    navigate(taskLogUrl({ status: 'failed', since: new Date(Date.now() - HOUR).toISOString() }));
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
