import { type FormEvent, useCallback, useEffect, useState } from 'react';
import type { AdminAccountsPage, AdminCreatedAccount } from '../../../../src/base/contract/admin';
import { api } from '../../lib/api';
import { Link } from '../../lib/router';
import { useAction } from '../../lib/use-action';
import { TIERS } from '../../lib/vocabulary';
import { Field, FormOutcome } from '../../ui/form-fields';
import { KeyReveal } from '../../ui/key-reveal';
import { AdminTable, budgetText, HeadRow, LoadState, num, usd, when } from './admin-kit';

const PAGE_SIZE = 25;

interface Filters {
  q: string;
  tier: string;
  status: '' | 'enabled' | 'disabled';
}

/** The query string of a listing: search, filters and page. */
function listQuery(filters: Filters, page: number): string {
  const query = new URLSearchParams({ page: String(page), limit: String(PAGE_SIZE) });
  if (filters.q.trim()) query.set('q', filters.q.trim());
  if (filters.tier) query.set('tier', filters.tier);
  if (filters.status) query.set('disabled', filters.status === 'disabled' ? 'true' : 'false');
  return query.toString();
}

/** Creates an account; its first API key is shown once, here. */
function CreateAccount({ onCreated }: { onCreated: () => void }) {
  const [email, setEmail] = useState('');
  const [tier, setTier] = useState('trial');
  const [password, setPassword] = useState('');
  const [created, setCreated] = useState<AdminCreatedAccount>();
  const state = useAction();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void state.run(async () => {
      const body = { email, tier, ...(password ? { password } : {}) };
      const answer = await api.post<AdminCreatedAccount>('/api/admin/v1/accounts', body);
      setCreated(answer);
      setEmail('');
      setPassword('');
      onCreated();
      return `Account ${answer.account.email} created.`;
    });
  };

  return (
    <section className="panel stack" aria-labelledby="create-heading">
      <h2 id="create-heading">Create an account</h2>
      <form className="stack" onSubmit={submit}>
        <div className="admin-filters">
          <Field
            label="E-mail"
            className="field grow"
            control={(id) => (
              <input
                id={id}
                type="email"
                required
                autoComplete="off"
                value={email}
                onChange={(event) => setEmail(event.target.value)}
              />
            )}
          />
          <Field
            label="Tier"
            control={(id) => (
              <select id={id} value={tier} onChange={(event) => setTier(event.target.value)}>
                {TIERS.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            )}
          />
          <Field
            label="Password (optional)"
            control={(id) => (
              <input
                id={id}
                type="password"
                autoComplete="new-password"
                minLength={8}
                value={password}
                onChange={(event) => setPassword(event.target.value)}
              />
            )}
          />
          <button type="submit" className="button primary" disabled={state.busy}>
            {state.busy ? 'Creating…' : 'Create account'}
          </button>
        </div>
        <FormOutcome error={state.error} done={state.done} />
      </form>
      {created && (
        <KeyReveal label={`API key of ${created.account.email} — shown once`} apiKey={created.api_key} />
      )}
    </section>
  );
}

/** The accounts: a searchable, paged table, and the form that creates one. */
export default function AccountsPage() {
  const [applied, setApplied] = useState<Filters>({ q: '', tier: '', status: '' });
  const [page, setPage] = useState(1);
  const [listing, setListing] = useState<AdminAccountsPage>();
  const load = useAction();
  const run = load.run;

  const refresh = useCallback(
    () =>
      run(async () =>
        setListing(await api.get<AdminAccountsPage>(`/api/admin/v1/accounts?${listQuery(applied, page)}`)),
      ),
    [run, applied, page],
  );
  useEffect(() => {
    void refresh();
  }, [refresh]);

  return (
    <div className="admin-page">
      <section className="panel stack" aria-labelledby="accounts-heading">
        <h2 id="accounts-heading">Accounts</h2>
        <AccountFilters
          initial={applied}
          onSearch={(filters) => {
            setPage(1);
            setApplied(filters);
          }}
        />
        <LoadState error={load.error} loading={load.busy && !listing} />
        {listing && <AccountsListing listing={listing} page={page} onPage={setPage} />}
      </section>
      <CreateAccount onCreated={() => void refresh()} />
    </div>
  );
}

/** "Search accounts": e-mail, tier and status, applied on Search. */
function AccountFilters({ initial, onSearch }: { initial: Filters; onSearch: (filters: Filters) => void }) {
  const [filters, setFilters] = useState<Filters>(initial);
  const search = (event: FormEvent) => {
    event.preventDefault();
    onSearch(filters);
  };
  return (
    <form className="admin-filters" onSubmit={search} aria-label="Search accounts">
      <Field
        label="E-mail contains"
        className="field grow"
        control={(id) => (
          <input
            id={id}
            type="search"
            value={filters.q}
            onChange={(event) => setFilters({ ...filters, q: event.target.value })}
          />
        )}
      />
      <Field
        label="Tier"
        control={(id) => (
          <select
            id={id}
            value={filters.tier}
            onChange={(event) => setFilters({ ...filters, tier: event.target.value })}
          >
            <option value="">Any</option>
            {TIERS.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        )}
      />
      <Field
        label="Status"
        control={(id) => (
          <select
            id={id}
            value={filters.status}
            onChange={(event) => setFilters({ ...filters, status: event.target.value as Filters['status'] })}
          >
            <option value="">Any</option>
            <option value="enabled">Enabled</option>
            <option value="disabled">Disabled</option>
          </select>
        )}
      />
      <button type="submit" className="button">
        Search
      </button>
    </form>
  );
}

/** A page of accounts: the count, the table, and the previous / next pages. */
function AccountsListing({
  listing,
  page,
  onPage,
}: {
  listing: AdminAccountsPage;
  page: number;
  onPage: (page: number) => void;
}) {
  return (
    <>
      <p className="small muted" aria-live="polite">
        {listing.total === 1 ? '1 account' : `${listing.total} accounts`}
        {listing.total_pages > 1 ? ` — page ${listing.page} of ${listing.total_pages}` : ''}
      </p>
      <AdminTable
        caption="Accounts, oldest first"
        head={
          <HeadRow
            columns={[
              'E-mail',
              'Tier',
              'Status',
              'Created',
              num('Images today'),
              num('Spend today'),
              num('Spend this month'),
              'Budget',
            ]}
          />
        }
      >
        {listing.items.map((account) => (
          <tr key={account.id}>
            <td>
              <Link href={`/admin/accounts/${encodeURIComponent(account.id)}`}>{account.email}</Link>
              {account.operator && <span className="badge operator">operator</span>}
            </td>
            <td>{account.tier}</td>
            <td>
              {account.disabled ? (
                <span className="badge state-bad">disabled</span>
              ) : (
                <span className="badge state-good">enabled</span>
              )}
            </td>
            <td>{when(account.created_at)}</td>
            <td className="num">
              {account.today.completed}
              {account.today.failed > 0 ? ` (+${account.today.failed} failed)` : ''}
            </td>
            <td className="num">{usd(account.today.cost_micros)}</td>
            <td className="num">{usd(account.month.cost_micros)}</td>
            <td>{budgetText(account.budget)}</td>
          </tr>
        ))}
      </AdminTable>
      {listing.total_pages > 1 && (
        <div className="row">
          <button type="button" className="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
            Previous page
          </button>
          <button
            type="button"
            className="button"
            disabled={page >= listing.total_pages}
            onClick={() => onPage(page + 1)}
          >
            Next page
          </button>
        </div>
      )}
    </>
  );
}
