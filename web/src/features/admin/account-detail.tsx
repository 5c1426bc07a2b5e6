import { type FormEvent, useCallback, useEffect, useId, useState } from 'react';
import type { AdminAccount, AdminPasswordReset } from '../../../../src/base/contract/admin';
import type { OperatorUsageReport } from '../../../../src/base/contract/usage';
import { api } from '../../lib/api';
import { Link } from '../../lib/router';
import { useAction } from '../../lib/use-action';
import { TIERS } from '../../lib/vocabulary';
import { CopyButton } from '../../ui/copy-button';
import { ConfirmDialog } from '../../ui/dialog';
import { Field, FormOutcome, PasswordField } from '../../ui/form-fields';
import { BudgetForm } from './account-budget';
import { AccountData } from './account-data';
import { AccountKeys } from './account-keys';
import { RetentionForm } from './account-retention';
import { images, LoadState, usd, when } from './admin-kit';
import { taskLogUrl } from './task-query';
import { ABSORBED_NOTE, activeDay, anyAbsorbed, ModelTable, NoUsage, SpendBars } from './usage-parts';

/** Tier, disabling and enabling. */
function Standing({
  account,
  onChanged,
}: {
  account: AdminAccount;
  onChanged: (account: AdminAccount) => void;
}) {
  const [tier, setTier] = useState(account.tier);
  const [confirming, setConfirming] = useState(false);
  const state = useAction();
  const path = `/api/admin/v1/accounts/${encodeURIComponent(account.id)}`;

  const change = (body: { tier?: string; disabled?: boolean }, done: string) =>
    state.run(async () => {
      onChanged(await api.patch<AdminAccount>(path, body));
      return done;
    });

  const saveTier = (event: FormEvent) => {
    event.preventDefault();
    void change({ tier }, `Tier set to ${tier}; it applies to the account's next request.`);
  };

  return (
    <div className="stack">
      <form className="admin-filters" onSubmit={saveTier}>
        <Field
          label="Tier"
          control={(id) => (
            <select
              id={id}
              value={tier}
              onChange={(event) => setTier(event.target.value as AdminAccount['tier'])}
            >
              {TIERS.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          )}
        />
        <button type="submit" className="button" disabled={state.busy || tier === account.tier}>
          Change tier
        </button>
        {account.disabled ? (
          <button
            type="button"
            className="button"
            disabled={state.busy}
            onClick={() =>
              void change({ disabled: false }, 'Enabled: its keys work again; it signs in anew.')
            }
          >
            Enable account
          </button>
        ) : (
          <button
            type="button"
            className="button danger"
            disabled={state.busy}
            onClick={() => setConfirming(true)}
          >
            Disable account
          </button>
        )}
      </form>
      <FormOutcome error={state.error} done={state.done} />
      {confirming && (
        <ConfirmDialog
          title={`Disable ${account.email}?`}
          message={<p>Its API keys are refused and its sessions end at once, on every node.</p>}
          confirmLabel="Disable account"
          danger
          onConfirm={() => {
            setConfirming(false);
            void change({ disabled: true }, 'Disabled: its keys and sessions no longer work.');
          }}
          onCancel={() => setConfirming(false)}
        />
      )}
    </div>
  );
}

/**
 * A password reset: a generated one-time password shown once, or one the operator types. Either way
 * the person's next website session can only set their own password first.
 */
function PasswordReset({ account, onReset }: { account: AdminAccount; onReset: () => void }) {
  const [password, setPassword] = useState('');
  const [generated, setGenerated] = useState<string>();
  const state = useAction();
  const ids = { password: useId(), shown: useId() };

  const reset = (given?: string) =>
    state.run(async () => {
      const answer = await api.post<AdminPasswordReset>(
        `/api/admin/v1/accounts/${encodeURIComponent(account.id)}/password`,
        given ? { password: given } : {},
      );
      setGenerated(answer.password ?? undefined);
      setPassword('');
      onReset();
      return 'Password reset; every session of the account has ended. At their next sign-in they must choose their own.';
    });

  return (
    <div className="stack">
      <form
        className="admin-filters"
        onSubmit={(event) => {
          event.preventDefault();
          void reset(password);
        }}
      >
        <PasswordField
          id={ids.password}
          label="New password"
          value={password}
          onChange={setPassword}
          autoComplete="new-password"
          minLength={8}
        />
        <button type="submit" className="button" disabled={state.busy}>
          Set password
        </button>
        <button type="button" className="button" disabled={state.busy} onClick={() => void reset()}>
          Generate a one-time password
        </button>
      </form>
      <FormOutcome error={state.error} done={state.done} />
      {generated && (
        <div className="key-reveal stack" role="status">
          <label className="field-label" htmlFor={ids.shown}>
            Password for {account.email} — shown once; hand it over (they choose their own when they sign in)
          </label>
          <div className="row">
            <input id={ids.shown} className="mono grow" readOnly value={generated} />
            <CopyButton text={generated} label="Copy password" />
          </div>
        </div>
      )}
    </div>
  );
}

/** The account's last 30 days: spend per day, and per model. */
function AccountUsage({ accountId }: { accountId: string }) {
  const [report, setReport] = useState<OperatorUsageReport>();
  const load = useAction();
  const run = load.run;
  useEffect(() => {
    void run(async () =>
      setReport(
        await api.get<OperatorUsageReport>(`/api/admin/v1/accounts/${encodeURIComponent(accountId)}/usage`),
      ),
    );
  }, [run, accountId]);
  if (!report) return <LoadState error={load.error} loading={load.busy} />;
  if (!report.days.some(activeDay)) return <NoUsage days={report.days.length} />;
  return (
    <div className="stack">
      <p>
        Last {report.days.length} days (UTC): <strong>{images(report.totals.completed)}</strong> completed,{' '}
        {report.totals.failed} failed, <strong>{usd(report.totals.cost_micros)}</strong> spent
        {anyAbsorbed(report.totals) && (
          <span title={ABSORBED_NOTE}>
            ; <strong>{usd(report.totals.absorbed_micros)}</strong> absorbed under its quotes
          </span>
        )}
        .
      </p>
      <SpendBars days={report.days} label="Spend per day" />
      <ModelTable models={report.models} absorbed={anyAbsorbed(report.totals)} />
    </div>
  );
}

/** One account: standing, password, keys, budgets, retention, usage. */
export default function AccountDetailPage({ id }: { id: string }) {
  const [account, setAccount] = useState<AdminAccount>();
  const load = useAction();
  const run = load.run;
  const refresh = useCallback(
    () =>
      run(async () =>
        setAccount(await api.get<AdminAccount>(`/api/admin/v1/accounts/${encodeURIComponent(id)}`)),
      ),
    [run, id],
  );
  useEffect(() => {
    void refresh();
  }, [refresh]);

  if (!account)
    return (
      <div className="admin-page">
        <p>
          <Link href="/admin">← All accounts</Link>
        </p>
        <LoadState error={load.error} loading={load.busy} />
      </div>
    );
  return (
    <div className="admin-page">
      <p>
        <Link href="/admin">← All accounts</Link>
      </p>
      <section className="panel stack" aria-labelledby="account-heading">
        <h2 id="account-heading">
          {account.email}
          {account.operator && <span className="badge operator">operator</span>}
          {account.disabled && <span className="badge state-bad">disabled</span>}
          {account.password_change_required && <span className="badge">must choose a new password</span>}
        </h2>
        <p className="small muted">
          Created {when(account.created_at)} · {account.tier} tier · today {images(account.today.completed)},{' '}
          {usd(account.today.cost_micros)} · this month {usd(account.month.cost_micros)}
        </p>
        <p>
          <Link href={taskLogUrl({ account: account.id })}>Tasks of this account</Link>
        </p>
        <Standing account={account} onChanged={setAccount} />
      </section>
      <section className="panel stack" aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        <PasswordReset account={account} onReset={() => void refresh()} />
      </section>
      <section className="panel stack" aria-labelledby="keys-heading">
        <h2 id="keys-heading">API keys</h2>
        <AccountKeys accountId={account.id} />
      </section>
      <section className="panel stack" aria-labelledby="budget-heading">
        <h2 id="budget-heading">Budgets</h2>
        <BudgetForm
          path={`/api/admin/v1/accounts/${encodeURIComponent(account.id)}/budget`}
          budget={account.budget}
          holds="The account's requests"
          onSaved={() => void refresh()}
        />
      </section>
      {account.retention && (
        <section className="panel stack" aria-labelledby="retention-heading">
          <h2 id="retention-heading">Retention</h2>
          <RetentionForm
            accountId={account.id}
            retention={account.retention}
            onSaved={() => void refresh()}
          />
        </section>
      )}
      <section className="panel stack" aria-labelledby="account-usage-heading">
        <h2 id="account-usage-heading">Usage and spend</h2>
        <AccountUsage accountId={account.id} />
      </section>
      <section className="panel stack" aria-labelledby="account-data-heading">
        <h2 id="account-data-heading">Export and erase</h2>
        <AccountData account={account} />
      </section>
    </div>
  );
}
