import { AdminTable, DayBars, images, usd } from './admin-kit';

/** One row's counts: images completed and failed, and what they cost. */
interface Counts {
  completed: number;
  failed: number;
  cost_micros: number;
}

/** Spend per UTC day as bars, each described by its day, spend and images. */
export function SpendBars({ days, label }: { days: Array<Counts & { date: string }>; label: string }) {
  return (
    <DayBars
      days={days}
      label={label}
      value={(i) => days[i]?.cost_micros ?? 0}
      describe={(i) => {
        const day = days[i];
        return day ? `${day.date}: ${usd(day.cost_micros)}, ${images(day.completed)}` : '';
      }}
    />
  );
}

/** The Completed, Failed and Spend column headers of a usage table. */
export function CountHeads() {
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
    </>
  );
}

/** The Completed, Failed and Spend cells of a usage table's row. */
export function CountCells({ counts }: { counts: Counts }) {
  return (
    <>
      <td className="num">{counts.completed}</td>
      <td className="num">{counts.failed}</td>
      <td className="num">{usd(counts.cost_micros)}</td>
    </>
  );
}

/** Usage per model: images completed, failed and spend. */
export function ModelTable({ models }: { models: Array<Counts & { model: string }> }) {
  return (
    <AdminTable
      caption="Per model"
      head={
        <tr>
          <th scope="col">Model</th>
          <CountHeads />
        </tr>
      }
    >
      {models.map((model) => (
        <tr key={model.model}>
          <td>
            <code>{model.model}</code>
          </td>
          <CountCells counts={model} />
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
