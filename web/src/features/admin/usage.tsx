import { useEffect, useId, useState } from 'react';
import type { AdminUsage } from '../../../../src/base/contract/admin';
import { api } from '../../lib/api';
import { Link } from '../../lib/router';
import { useAction } from '../../lib/use-action';
import { AdminTable, LoadState, usd } from './admin-kit';
import {
  ABSORBED_NOTE,
  activeDay,
  anyAbsorbed,
  CountCells,
  CountHeads,
  ModelTable,
  NoUsage,
  SpendBars,
} from './usage-parts';

const RANGES = [7, 30, 90] as const;

/** The UTC day `days` − 1 days before today, and today (an inclusive range of `days` days). */
function rangeOf(days: number): { from: string; to: string } {
  const to = new Date();
  const from = new Date(to.getTime() - (days - 1) * 86_400_000);
  return { from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10) };
}

/** Usage and spend of every account: per day, per model, per account. */
export default function UsagePage() {
  const [days, setDays] = useState<(typeof RANGES)[number]>(30);
  const [usage, setUsage] = useState<AdminUsage>();
  const load = useAction();
  const run = load.run;
  const rangeId = useId();
  const absorbed = usage !== undefined && anyAbsorbed(usage.totals);

  useEffect(() => {
    const { from, to } = rangeOf(days);
    void run(async () => setUsage(await api.get<AdminUsage>(`/api/admin/v1/usage?from=${from}&to=${to}`)));
  }, [run, days]);

  return (
    <div className="admin-page">
      <section className="panel stack" aria-labelledby="usage-heading">
        <h2 id="usage-heading">Usage and spend</h2>
        <div className="field admin-range">
          <label className="field-label" htmlFor={rangeId}>
            Range (UTC days)
          </label>
          <select
            id={rangeId}
            value={days}
            onChange={(event) => setDays(Number(event.target.value) as 7 | 30 | 90)}
          >
            {RANGES.map((n) => (
              <option key={n} value={n}>
                Last {n} days
              </option>
            ))}
          </select>
        </div>
        <LoadState error={load.error} loading={load.busy && !usage} />
        {usage && (
          <>
            <div className="admin-figures" aria-live="polite">
              <div>
                <span className="small muted">Spend</span>
                <strong>{usd(usage.totals.cost_micros)}</strong>
              </div>
              {absorbed && (
                <div title={ABSORBED_NOTE}>
                  <span className="small muted">Absorbed under quotes</span>
                  <strong>{usd(usage.totals.absorbed_micros)}</strong>
                </div>
              )}
              <div>
                <span className="small muted">Images completed</span>
                <strong>{usage.totals.completed}</strong>
              </div>
              <div>
                <span className="small muted">Images failed</span>
                <strong>{usage.totals.failed}</strong>
              </div>
            </div>
            {!usage.days.some(activeDay) && <NoUsage days={usage.days.length} />}
            <SpendBars days={usage.days} label="Spend per day, every account" />
            {usage.models.length > 0 && <ModelTable models={usage.models} absorbed={absorbed} />}
            {usage.accounts.length > 0 && (
              <AdminTable
                caption="Per account, most images first"
                head={
                  <tr>
                    <th scope="col">Account</th>
                    <CountHeads absorbed={absorbed} />
                    <th scope="col">Models</th>
                  </tr>
                }
              >
                {usage.accounts.map((account) => (
                  <tr key={account.id}>
                    <td>
                      <Link href={`/admin/accounts/${encodeURIComponent(account.id)}`}>
                        {account.email ?? account.id}
                      </Link>
                    </td>
                    <CountCells counts={account} absorbed={absorbed} />
                    <td>
                      {account.models.map((model) => `${model.model} ${usd(model.cost_micros)}`).join(', ')}
                    </td>
                  </tr>
                ))}
              </AdminTable>
            )}
            {usage.days.some(activeDay) && (
              <AdminTable
                caption="Per day with images (days without any are left out)"
                head={
                  <tr>
                    <th scope="col">Day (UTC)</th>
                    <CountHeads absorbed={absorbed} />
                  </tr>
                }
              >
                {[...usage.days]
                  .reverse()
                  .filter(activeDay)
                  .map((day) => (
                    <tr key={day.date}>
                      <td>{day.date}</td>
                      <CountCells counts={day} absorbed={absorbed} />
                    </tr>
                  ))}
              </AdminTable>
            )}
          </>
        )}
      </section>
    </div>
  );
}
