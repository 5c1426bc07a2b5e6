/** UTC calendar days as `YYYY-MM-DD`: the unit of usage reports and of daily quotas. */

const DAY_MS = 86_400_000;
const dayPattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The UTC day of an instant (ms since the epoch). */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Midnight UTC starting `day`, or undefined when `day` is not a real `YYYY-MM-DD` date. */
export function startOfDay(day: string): number | undefined {
  const match = dayPattern.exec(day);
  if (!match) return undefined;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  // Date.UTC rolls 2026-02-30 over to March: a day that does not exist comes back different.
  return dayOf(ms) === day ? ms : undefined;
}

/** The day `n` days after `day` (before it when negative). */
export function addDays(day: string, n: number): string {
  return dayOf((startOfDay(day) ?? Number.NaN) + n * DAY_MS);
}

/** Days from `from` to `to`, both included (0 when `to` is before `from`). */
export function daysBetween(from: string, to: string): number {
  return Math.round(((startOfDay(to) ?? 0) - (startOfDay(from) ?? 0)) / DAY_MS) + 1;
}

/** Every day from `from` to `to`, in order. */
export function eachDay(from: string, to: string): string[] {
  return Array.from({ length: Math.max(0, daysBetween(from, to)) }, (_, i) => addDays(from, i));
}

/** The UTC day and month periods an instant falls in: their starts and the start of the next ones. */
export function periodsOf(ms: number) {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const dayStart = Date.UTC(year, month, date.getUTCDate());
  return {
    dayStart,
    nextDay: dayStart + DAY_MS,
    monthStart: Date.UTC(year, month, 1),
    nextMonth: Date.UTC(year, month + 1, 1),
  };
}
