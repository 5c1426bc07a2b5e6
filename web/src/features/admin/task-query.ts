/** The task log's filters: kept in the console's URL, sent to the admin API, said in words. */
import { msOfIso, queryOf, timeWords } from './log-format.js';

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
const TIMES = new Set(['since', 'until']);

/** The filters a URL's query holds (absent ones empty). */
export function taskFiltersOf(search: URLSearchParams): TaskFilters {
  const entries = TASK_FILTER_NAMES.map((name) => [name, search.get(name)?.trim() ?? '']);
  // A time that is not an instant is no filter (a hand-edited URL): dropped, not sent, not said.
  for (const entry of entries)
    if (TIMES.has(entry[0] ?? '') && msOfIso(entry[1]) === undefined) entry[1] = '';
  return Object.fromEntries(entries) as TaskFilters;
}

/** The console's URL of the log with these filters. */
export function taskLogUrl(filters: Partial<TaskFilters>): string {
  // In the filters' own order: the same filters are always the same URL (and the same query).
  const query = queryOf(Object.fromEntries(TASK_FILTER_NAMES.map((name) => [name, filters[name]])));
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
    since: (v) => `created from ${timeWords(v)}`,
    until: (v) => `created before ${timeWords(v)}`,
    error: (v) => `error contains “${v}”`,
  };
  return TASK_FILTER_NAMES.filter((name) => filters[name])
    .map((name) => words[name](filters[name]))
    .join(', ');
}

/** "Failed in the last hour" at `now`: failed tasks created since an hour before it. */
export const failedLastHourUrl = (now: number) =>
  taskLogUrl({ status: 'failed', since: new Date(now - HOUR).toISOString() });
