import { AdminTable, DayBars, images, usd } from './admin-kit';

/**
 * One row's counts: images completed and failed, what they cost, and what the operator absorbed
 * (upstream bills beyond quotes' maxima, not part of the spend).
 */
interface Counts {
  completed: number;
  failed: number;
  cost_micros: number;
  absorbed_micros: number;
}

type Day = Counts & { date: string };

/** Whether anything happened on a day (an image made or failed). */
export const activeDay = (day: Counts) => day.completed > 0 || day.failed > 0;

/**
 * A range's chart: spend per UTC day as bars; where nothing cost anything (every model used is
 * priced $0, or has no price) images per day instead, saying so; nothing at all when no image was
 * made or failed (the caller shows its empty state): never an empty chart.
 */
export function SpendBars({ days, label }: { days: Day[]; label: string }) {
  const spent = days.some((day) => day.cost_micros > 0);
  if (!spent && !days.some((day) => day.completed > 0)) return null;
  return (
    <>
      {!spent && (
        <p className="small muted">Nothing in this range had a price: the chart shows images per day.</p>
      )}
      <DayBars
        days={days}
        label={spent ? label : label.replace(/^Spend/, 'Images')}
        value={(i) => (spent ? days[i]?.cost_micros : days[i]?.completed) ?? 0}
        describe={(i) => {
          const day = days[i];
          return day ? `${day.date}: ${usd(day.cost_micros)}, ${images(day.completed)}` : '';
        }}
      />
    </>
  );
}

/** What a range with no image made or failed shows instead of its chart and tables. */
export function NoUsage({ days }: { days: number }) {
  return (
    <div className="empty">
      <p>No image was made or failed in the last {days} days (UTC).</p>
    </div>
  );
}

/**
 * Whether a range's tables show the Absorbed column: only when something was absorbed in it (most
 * deployments never absorb; a column of $0.00 would only be noise). Its totals always say it.
 */
export const anyAbsorbed = (totals: Counts) => totals.absorbed_micros > 0;

/** What the Absorbed figure means, for its title and the figure's note. */
export const ABSORBED_NOTE =
  "Billed by upstreams beyond quotes' maxima: paid by the operator, not in the spend";

/** The Completed, Failed and Spend column headers of a usage table, and Absorbed when `absorbed`. */
export function CountHeads({ absorbed }: { absorbed: boolean }) {
  return (
    <>
      <th scope="col" className="num">
        Completed
      </th>
      <th scope="col" className="num">
        Failed
      </th>
      <th scope="col" className="num">
        Spend
      </th>
      {absorbed && (
        <th scope="col" className="num" title={ABSORBED_NOTE}>
          Absorbed
        </th>
      )}
    </>
  );
}

/** The Completed, Failed and Spend cells of a usage table's row, and Absorbed when `absorbed`. */
export function CountCells({ counts, absorbed }: { counts: Counts; absorbed: boolean }) {
  return (
    <>
      <td className="num">{counts.completed}</td>
      <td className="num">{counts.failed}</td>
      <td className="num">{usd(counts.cost_micros)}</td>
      {absorbed && <td className="num">{usd(counts.absorbed_micros)}</td>}
    </>
  );
}

/** Usage per model: images completed, failed and spend (and absorbed when `absorbed`). */
export function ModelTable({
  models,
  absorbed,
}: {
  models: Array<Counts & { model: string }>;
  absorbed: boolean;
}) {
  return (
    <AdminTable
      caption="Per model"
      head={
        <tr>
          <th scope="col">Model</th>
          <CountHeads absorbed={absorbed} />
        </tr>
      }
    >
      {models.map((model) => (
        <tr key={model.model}>
          <td>
            <code>{model.model}</code>
          </td>
          <CountCells counts={model} absorbed={absorbed} />
        </tr>
      ))}
    </AdminTable>
  );
}

/** The Daily and Monthly (UTC) budget column headers. */
export function BudgetHeads() {
  return (
    <>
      <th scope="col" className="num">
        Daily (UTC)
      </th>
      <th scope="col" className="num">
        Monthly (UTC)
      </th>
    </>
  );
}

/** A budget's daily and monthly limits, a dash where there is none. */
export function BudgetCells({
  budget,
}: {
  budget: { daily_micros: number | null; monthly_micros: number | null };
}) {
  return (
    <>
      <td className="num">{budget.daily_micros === null ? '—' : usd(budget.daily_micros)}</td>
      <td className="num">{budget.monthly_micros === null ? '—' : usd(budget.monthly_micros)}</td>
    </>
  );
}
