import { useCallback, useEffect, useState } from 'react';
import type { AdminPolicies } from '../../../../src/base/contract/admin';
import type { AdminPolicyVersions } from '../../../../src/base/contract/admin-policies';
import { api } from '../../lib/api';
import { Link } from '../../lib/router';
import { useAction } from '../../lib/use-action';
import { AdminTable, HeadRow, LoadState, num, when } from './admin-kit';
import { TierPolicyForm } from './tier-policy-form';
import { BudgetCells, BudgetHeads } from './usage-parts';

const limit = (value: number | null) => (value === null ? 'no limit' : value.toLocaleString('en'));

/** Where a version came from, in words. */
const SOURCES = {
  file: 'ATELIER_POLICY_FILE at a start',
  api: 'the admin API',
  console: 'the console',
} as const;

/** The last versions of the tier policies: who changed them, from where, when. */
function PolicyHistory({ history }: { history: AdminPolicyVersions }) {
  return (
    <AdminTable caption="Last versions" head={<HeadRow columns={[num('Version'), 'From', 'By', 'When']} />}>
      {history.items.map((version) => (
        <tr key={version.version}>
          <td className="num">{version.version}</td>
          <td>{SOURCES[version.source]}</td>
          <td>{version.created_by}</td>
          <td>{when(version.created_at)}</td>
        </tr>
      ))}
    </AdminTable>
  );
}

/** The tier policies (in the store, edited here) and the spend budgets in force. */
export default function PoliciesPage() {
  const [policies, setPolicies] = useState<AdminPolicies>();
  const [history, setHistory] = useState<AdminPolicyVersions>();
  const [editing, setEditing] = useState<string>();
  const load = useAction();
  const run = load.run;
  const reload = useCallback(
    () =>
      run(async () => {
        const [answer, versions] = await Promise.all([
          api.get<AdminPolicies>('/api/admin/v1/policies'),
          api.get<AdminPolicyVersions>('/api/admin/v1/policies/versions?limit=5'),
        ]);
        setPolicies(answer);
        setHistory(versions);
      }),
    [run],
  );
  useEffect(() => {
    void reload();
  }, [reload]);
  const edited = policies?.tiers.find((tier) => tier.tier === editing);

  return (
    <div className="admin-page">
      <section className="panel stack" aria-labelledby="tiers-heading">
        <h2 id="tiers-heading">Tier policies</h2>
        <p className="small muted">
          Kept in the store and seeded from <code>ATELIER_POLICY_FILE</code>: the last change wins (an edit
          here, or a changed file at a start). A tier without a policy is unrestricted. An edit is in force on
          every node within seconds, without a restart.
        </p>
        {policies && (
          <p>
            Version {policies.in_force.version} in force, from {SOURCES[policies.in_force.source]}
            {policies.in_force.created_at > 0 &&
              ` (${policies.in_force.created_by}, ${when(policies.in_force.created_at)})`}
            .
          </p>
        )}
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
                  { name: 'Edit', hidden: true },
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
                <td>
                  <button
                    type="button"
                    className="button small"
                    aria-expanded={editing === tier.tier}
                    onClick={() => setEditing(editing === tier.tier ? undefined : tier.tier)}
                  >
                    Edit<span className="visually-hidden"> the {tier.tier} tier</span>
                  </button>
                </td>
              </tr>
            ))}
          </AdminTable>
        )}
        {policies && edited && (
          <section className="stack" aria-labelledby="tier-edit-heading">
            <h3 id="tier-edit-heading">Edit the {edited.tier} tier</h3>
            <TierPolicyForm
              key={edited.tier}
              tier={edited}
              version={policies.in_force.version}
              onSaved={() => void reload()}
              onCancel={() => setEditing(undefined)}
            />
          </section>
        )}
        {history && history.items.length > 0 && <PolicyHistory history={history} />}
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
