/** How the task log and the audit log write durations, instants and query strings for people. */

/** "850 ms", "3.2 s", "4 min 5 s", "2 h 10 min"; a dash for none. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A day and time to the second, in the reader's zone ("Nov 28, 2026, 21:15:07"); a dash for none. */
export function instant(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return new Date(ms).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'medium' });
}

/** A compact instant for a table's row: "Nov 28, 10:22:30 PM" (the year too when it is not this one). */
export function stamp(ms: number): string {
  const thisYear = new Date(ms).getFullYear() === new Date().getFullYear();
  return new Date(ms).toLocaleString('en', {
    month: 'short',
    day: 'numeric',
    ...(thisYear ? {} : { year: 'numeric' }),
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
  });
}

/** The first `max` characters of a text, with an ellipsis when it was longer. */
export function shorten(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/**
 * A `datetime-local` input's value (the reader's zone, to the minute) as an ISO instant, or '' when
 * it is empty or not a time.
 */
export function isoOfLocal(value: string): string {
  if (!value) return '';
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : '';
}

/** An ISO instant as a `datetime-local` input's value in the reader's zone; '' when it is not one. */
export function localOfIso(iso: string): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return '';
  const local = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** Epoch milliseconds of an ISO instant, or undefined when it is not one. */
export function msOfIso(iso: string | undefined): number | undefined {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A filter's instant in words, in the reader's zone. */
export const timeWords = (iso: string) => new Date(iso).toLocaleString('en');

/** A query string of the non-empty values, in the order given (no leading `?`). */
export function queryOf(values: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && value !== '') query.set(name, String(value));
  }
  return query.toString();
}
