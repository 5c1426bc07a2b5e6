import type { ReactNode } from 'react';
import { formatUsd } from '../../lib/vocabulary';

/** Dollars from micro-dollars, as people read them ("$0.04"). */
export const usd = (micros: number) => formatUsd(micros);

/** "1 image", "3 images". */
export const images = (count: number) => `${count.toLocaleString('en')} ${count === 1 ? 'image' : 'images'}`;

/** An account's or a key's budgets in words ("$1.00/day, $20.00/month"), or a dash for none. */
export function budgetText(
  budget: { daily_micros: number | null; monthly_micros: number | null } | null,
): string {
  if (!budget) return '—';
  const parts = [
    budget.daily_micros === null ? undefined : `${usd(budget.daily_micros)}/day`,
    budget.monthly_micros === null ? undefined : `${usd(budget.monthly_micros)}/month`,
  ];
  return parts.filter(Boolean).join(', ') || '—';
}

/** A day and time in the reader's zone, or a dash. */
export function when(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return new Date(ms).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * A column of a table: its heading, or with `num` a right-aligned column of figures, with `hidden`
 * one whose heading only screen readers hear.
 */
export type Column = string | { name: string; num?: true; hidden?: true };

/** A column of figures (right-aligned). */
export const num = (name: string): Column => ({ name, num: true });

/** A table's header row: a heading per column, then `children` (more headings, such as BudgetHeads). */
export function HeadRow({ columns, children }: { columns: Column[]; children?: ReactNode }) {
  return (
    <tr>
      {columns.map((column) => {
        const { name, num: figures, hidden } = typeof column === 'string' ? { name: column } : column;
        return (
          <th key={name} scope="col" className={figures ? 'num' : undefined}>
            {hidden ? <span className="visually-hidden">{name}</span> : name}
          </th>
        );
      })}
      {children}
    </tr>
  );
}

/** A table that scrolls sideways on narrow screens, with a caption for screen readers and eyes. */
export function AdminTable({
  caption,
  head,
  children,
}: {
  caption: string;
  head: ReactNode;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1).
    <section className="admin-table-wrap" tabIndex={0} aria-label={caption}>
      <table className="admin-table">
        <caption>{caption}</caption>
        <thead>{head}</thead>
        <tbody>{children}</tbody>
      </table>
    </section>
  );
}

/** A load's failure, or its progress. */
export function LoadState({ error, loading }: { error?: string | undefined; loading: boolean }) {
  if (error)
    return (
      <p className="error-text" role="alert">
        {error}
      </p>
    );
  return loading ? <p className="muted">Loading…</p> : null;
}

const WIDTH = 600;
const HEIGHT = 120;

/**
 * One bar per day (plain SVG, no chart library), its height the day's value; every figure is also
 * in the title of its bar and in the table beside the chart.
 */
export function DayBars({
  days,
  value,
  label,
  describe,
}: {
  days: Array<{ date: string }>;
  value: (index: number) => number;
  /** What the bars measure, for the chart's accessible name ("Spend per day"). */
  label: string;
  describe: (index: number) => string;
}) {
  const values = days.map((_, i) => value(i));
  const peak = Math.max(1, ...values);
  const slot = WIDTH / Math.max(1, days.length);
  const bar = Math.max(1, slot * 0.7);
  const first = days[0]?.date ?? '';
  const last = days.at(-1)?.date ?? '';
  return (
    <figure className="usage-figure">
      <svg
        className="admin-bars"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${label}, ${first} to ${last}`}
        preserveAspectRatio="none"
      >
        {days.map((day, i) => {
          const height = ((values[i] ?? 0) / peak) * (HEIGHT - 4);
          return (
            <g key={day.date}>
              <title>{describe(i)}</title>
              <rect
                x={i * slot + (slot - bar) / 2}
                y={HEIGHT - height}
                width={bar}
                height={height}
                fill="var(--accent)"
              />
            </g>
          );
        })}
        <line x1={0} x2={WIDTH} y1={HEIGHT} y2={HEIGHT} stroke="var(--border-strong)" />
      </svg>
      <div className="usage-axis small muted">
        <span>{first}</span>
        <span>{last}</span>
      </div>
    </figure>
  );
}
