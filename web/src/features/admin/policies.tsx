import { useEffect, useState } from 'react';
import type { AdminPolicies } from '../../../../src/base/contract/admin';
import { api } from '../../lib/api';
import { Link } from '../../lib/router';
import { useAction } from '../../lib/use-action';
import { AdminTable, HeadRow, LoadState, num } from './admin-kit';
import { BudgetCells, BudgetHeads } from './usage-parts';

const limit = (value: number | null) => (value === null ? 'no limit' : value.toLocaleString('en'));

/** The tier policies (ATELIER_POLICY_FILE) and the spend budgets in force. */
export default function PoliciesPage() {
  const [policies, setPolicies] = useState<AdminPolicies>();
  const load = useAction();
  const run = load.run;
  useEffect(() => {
    void run(async () => setPolicies(await api.get<AdminPolicies>('/api/admin/v1/policies')));
  }, [run]);

  return (
    <div className="admin-page">
      <section className="panel stack" aria-labelledby="tiers-heading">
        <h2 id="tiers-heading">Tier policies</h2>
        <p className="small muted">
          From <code>ATELIER_POLICY_FILE</code>; a tier without a policy is unrestricted. Change the file and
          restart to change them.
        </p>
        <LoadState error={load.error} loading={load.busy && !policies} />
        {policies && (
          <AdminTable
            caption="Tiers"
            head={
              <HeadRow
                columns={[
                  'Tier',
                  num('Accounts'),
                  'Models',
                  num('Images a day'),
                  num('Images a month'),
                  num('Tasks at once'),
                ]}
              />
            }
          >
            {policies.tiers.map((tier) => (
              <tr key={tier.tier}>
                <td>
                  {tier.tier}
                  {!tier.policy && <span className="badge">unrestricted</span>}
                </td>
                <td className="num">{tier.accounts}</td>
                <td>{tier.models ? tier.models.join(', ') : 'every model'}</td>
                <td className="num">{limit(tier.images_per_day)}</td>
                <td className="num">{limit(tier.images_per_month)}</td>
                <td className="num">{limit(tier.tasks_in_flight)}</td>
              </tr>
            ))}
          </AdminTable>
        )}
      </section>
      <section className="panel stack" aria-labelledby="budgets-heading">
        <h2 id="budgets-heading">Spend budgets</h2>
        <p className="small muted">
          Set on each account’s page, or with bin/atelier accounts set-budget (a key’s own with --key, or PUT
          /api/admin/v1/accounts/…/keys/…/budget).
        </p>
        {policies && policies.budgets.length === 0 && <p>No account has a budget.</p>}
        {policies && policies.budgets.length > 0 && (
          <AdminTable
            caption="Accounts with a budget"
            head={
              <HeadRow columns={['Account']}>
                <BudgetHeads />
              </HeadRow>
            }
          >
            {policies.budgets.map((budget) => (
              <tr key={budget.id}>
                <td>
                  <Link href={`/admin/accounts/${encodeURIComponent(budget.id)}`}>{budget.email}</Link>
                </td>
                <BudgetCells budget={budget} />
              </tr>
            ))}
          </AdminTable>
        )}
        {policies && policies.key_budgets.length > 0 && (
          <AdminTable
            caption="API keys with a budget of their own"
            head={
              <HeadRow columns={['Account', 'Key id']}>
                <BudgetHeads />
              </HeadRow>
            }
          >
            {policies.key_budgets.map((budget) => (
              <tr key={budget.key_id}>
                <td>
                  <Link href={`/admin/accounts/${encodeURIComponent(budget.account_id)}`}>
                    {budget.email}
                  </Link>
                </td>
                <td>
                  <code>{budget.key_id}</code>
                </td>
                <BudgetCells budget={budget} />
              </tr>
            ))}
          </AdminTable>
        )}
      </section>
    </div>
  );
}
