/**
 * The search and filters of saved works and the library, kept in the page's URL (so a search can
 * be shared, bookmarked and reloaded): `q`, `model`, `mode`, and `from`/`to` as local dates
 * (YYYY-MM-DD, both days included). The API takes instants; this turns one into the other.
 */
export interface SearchState {
  q: string;
  model: string;
  mode: string;
  from: string;
  to: string;
}

const FIELDS = ['q', 'model', 'mode', 'from', 'to'] as const;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The search a page URL holds. */
export function searchFromUrl(params: URLSearchParams): SearchState {
  const value = (name: string) => params.get(name) ?? '';
  const date = (name: string) => (DATE.test(value(name)) ? value(name) : '');
  return { q: value('q'), model: value('model'), mode: value('mode'), from: date('from'), to: date('to') };
}

/** The page URL's query for a search (`extra` first: the library's kind), without empty fields. */
export function searchToUrl(state: SearchState, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(extra)) if (value) params.set(name, value);
  for (const name of FIELDS) if (state[name].trim()) params.set(name, state[name].trim());
  const query = params.toString();
  return query ? `?${query}` : '';
}

/** Local midnight of a YYYY-MM-DD date, `days` later. */
function localMidnight(date: string, days = 0): number {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(y ?? 1970, (m ?? 1) - 1, (d ?? 1) + days).getTime();
}

/** The API's query fields for a search: the dates become the person's local day bounds. */
export function searchToApi(state: SearchState): string {
  const params = new URLSearchParams();
  if (state.q.trim()) params.set('q', state.q.trim());
  if (state.model) params.set('model', state.model);
  if (state.mode) params.set('mode', state.mode);
  if (state.from) params.set('from', String(localMidnight(state.from)));
  if (state.to) params.set('to', String(localMidnight(state.to, 1)));
  const query = params.toString();
  return query ? `&${query}` : '';
}

/** True when any search field is set. */
export function isSearching(state: SearchState): boolean {
  return FIELDS.some((name) => state[name] !== '');
}
