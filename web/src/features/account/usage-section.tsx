import { useEffect, useState } from 'react';
import { api } from '../../lib/api';
import { formatDate } from '../../lib/format';
import type { UsageReport } from '../../lib/types';
import { useAction } from '../../lib/use-action';
import { formatUsd } from '../../lib/vocabulary';

const WIDTH = 600;
const HEIGHT = 120;

/**
 * Images per day as stacked bars (completed under failed) and spend per day as a line over them (its
 * own scale, the dearest day at the top), plain SVG; the numbers are also in text.
 */
function UsageChart({ report }: { report: UsageReport }) {
  const peak = Math.max(1, ...report.days.map((day) => day.completed + day.failed));
  const dearest = Math.max(0, ...report.days.map((day) => day.cost_micros));
  const spendY = (micros: number) => HEIGHT - 2 - (dearest > 0 ? (micros / dearest) * (HEIGHT - 8) : 0);
  const slot = WIDTH / report.days.length;
  const bar = Math.max(1, slot * 0.7);
  const scale = (HEIGHT - 4) / peak;
  const first = report.days[0]?.date ?? report.from;
  const last = report.days.at(-1)?.date ?? report.to;
  // Labels are HTML, not SVG text: the chart stretches to the panel's width and would distort them.
  return (
    <figure className="usage-figure">
      <div className="usage-axis small muted">
        <span>
          <span className="usage-swatch" style={{ background: 'var(--accent)' }} /> completed{' '}
          <span className="usage-swatch" style={{ background: 'var(--danger)' }} /> failed{' '}
          <span className="usage-swatch usage-swatch-line" /> spend
        </span>
        <span>
          busiest day: {peak} · dearest day: {formatUsd(dearest)}
        </span>
      </div>
      <svg
        className="usage-chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`Images per day from ${first} to ${last}: ${report.totals.completed} completed, ${report.totals.failed} failed; busiest day ${peak}; spend ${formatUsd(report.totals.cost_micros)}, dearest day ${formatUsd(dearest)}`}
        width="100%"
        preserveAspectRatio="none"
      >
        {report.days.map((day, i) => {
          const x = i * slot + (slot - bar) / 2;
          const done = day.completed * scale;
          const failed = day.failed * scale;
          return (
            <g key={day.date}>
              <title>{`${day.date}: ${day.completed} completed, ${day.failed} failed, ${formatUsd(day.cost_micros)}`}</title>
              <rect x={x} y={HEIGHT - done} width={bar} height={done} fill="var(--accent)" />
              <rect x={x} y={HEIGHT - done - failed} width={bar} height={failed} fill="var(--danger)" />
            </g>
          );
        })}
        <line x1={0} x2={WIDTH} y1={HEIGHT} y2={HEIGHT} stroke="var(--border-strong)" />
        {dearest > 0 && (
          <polyline
            className="usage-spend"
            fill="none"
            stroke="var(--text)"
            strokeWidth={2}
            vectorEffect="non-scaling-stroke"
            points={report.days
              .map((day, i) => `${i * slot + slot / 2},${spendY(day.cost_micros)}`)
              .join(' ')}
          />
        )}
      </svg>
      <div className="usage-axis small muted">
        <span>{first}</span>
        <span>{last}</span>
      </div>
    </figure>
  );
}

/** What the tier policy leaves, in words. */
function AllowanceLines({ allowance }: { allowance: NonNullable<UsageReport['allowance']> }) {
  return (
    <ul className="usage-list small">
      {allowance.images_per_day && (
        <li>
          Today: {allowance.images_per_day.used} of {allowance.images_per_day.limit} images (resets{' '}
          {formatDate(allowance.images_per_day.resets_at)}, your time)
        </li>
      )}
      {allowance.images_per_month && (
        <li>
          This month: {allowance.images_per_month.used} of {allowance.images_per_month.limit} images
        </li>
      )}
      {allowance.tasks_in_flight && (
        <li>
          In flight: {allowance.tasks_in_flight.current} of {allowance.tasks_in_flight.limit} tasks at once
        </li>
      )}
      {allowance.models && <li>Models: {allowance.models.join(', ')}</li>}
    </ul>
  );
}

/** The account's spend budgets and the calling key's, in words (none on a website session's key). */
function BudgetLines({ budgets }: { budgets: NonNullable<UsageReport['budgets']> }) {
  const line = (name: string, budget: NonNullable<typeof budgets.daily> | null) =>
    budget && (
      <li key={name}>
        {name}: {formatUsd(budget.spent_micros)} of {formatUsd(budget.limit_micros)} spent or reserved,{' '}
        {formatUsd(budget.remaining_micros)} left (resets {formatDate(budget.resets_at)}, your time)
      </li>
    );
  return (
    <ul className="usage-list small">
      {line('Daily budget', budgets.daily)}
      {line('Monthly budget', budgets.monthly)}
    </ul>
  );
}

/** The account page's usage: the last 30 days per day and model, spend, budgets and the tier's allowance. */
export function UsageSection() {
  const [report, setReport] = useState<UsageReport>();
  const { error, run } = useAction();

  useEffect(() => {
    void run(async () => setReport(await api.get<UsageReport>('/web/api/account/usage')));
  }, [run]);

  if (error)
    return (
      <p className="error-text" role="alert">
        {error}
      </p>
    );
  if (!report) return <p className="muted">Loading…</p>;
  return (
    <div className="stack">
      <p>
        Last {report.days.length} days (UTC): <strong>{report.totals.completed}</strong> images completed,{' '}
        <strong>{report.totals.failed}</strong> failed; spend{' '}
        <strong>{formatUsd(report.totals.cost_micros)}</strong> (failed images cost nothing).
      </p>
      <UsageChart report={report} />
      {report.models.length > 0 && (
        <ul className="usage-list small">
          {report.models.map((model) => (
            <li key={model.model}>
              <code>{model.model}</code>: {model.completed} completed, {model.failed} failed,{' '}
              {formatUsd(model.cost_micros)}
            </li>
          ))}
        </ul>
      )}
      {report.budgets && <BudgetLines budgets={report.budgets} />}
      {report.allowance && <AllowanceLines allowance={report.allowance} />}
    </div>
  );
}
