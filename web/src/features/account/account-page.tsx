import { type FormEvent, useEffect, useId, useState } from 'react';
import { api } from '../../lib/api';
import type { AccountInfo } from '../../lib/types';
import { useAction } from '../../lib/use-action';
import { CopyButton } from '../../ui/copy-button';
import { FormOutcome } from '../../ui/form-fields';
import { AccountDataSection } from './account-data-section';
import { ApiKeySection } from './api-key-section';
import { OAuthGrantsSection } from './oauth-grants-section';
import { SignInSecurity } from './sign-in-security';
import { SpendConfirmationSection } from './spend-confirmation-section';
import { UsageSection } from './usage-section';
import { WebhooksSection } from './webhooks-section';

const PROVIDER_NAMES: Record<string, string> = {
  gemini: 'Google Gemini',
  openai: 'OpenAI',
  replicate: 'Replicate',
  fal: 'fal',
  comfyui: 'ComfyUI',
  local: 'Local renderer',
};
const providerName = (name: string) => PROVIDER_NAMES[name] ?? name;

function UpstreamKeyForm({ account, onSaved }: { account: AccountInfo; onSaved: () => void }) {
  const { upstream } = account;
  const preferred =
    upstream.providers.find((p) => p.name === upstream.default_provider)?.name ??
    upstream.providers[0]?.name ??
    '';
  const [provider, setProvider] = useState(preferred);
  const [key, setKey] = useState('');
  const state = useAction();
  const ids = { provider: useId(), key: useId(), help: useId() };
  const chosen = upstream.providers.find((p) => p.name === provider);

  const keyPath = `/web/api/account/upstream-keys/${encodeURIComponent(provider)}`;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (key.trim() === '') return state.fail('Paste the key first.');
    await state.run(async () => {
      await api.put(keyPath, { key });
      setKey('');
      onSaved();
      return `${providerName(provider)} key saved. It is stored encrypted and never shown again.`;
    });
  };

  const remove = () =>
    state.run(async () => {
      await api.delete(keyPath);
      onSaved();
      return `${providerName(provider)} key removed.`;
    });

  if (upstream.providers.length === 0)
    return <p className="muted">This deployment has no upstream that takes a key.</p>;

  return (
    <form className="stack" onSubmit={save}>
      <div className="field-pair">
        <div className="field">
          <label className="field-label" htmlFor={ids.provider}>
            Provider
          </label>
          <select
            id={ids.provider}
            value={provider}
            onChange={(event) => {
              setProvider(event.target.value);
              state.reset();
            }}
          >
            {upstream.providers.map((p) => (
              <option key={p.name} value={p.name}>
                {providerName(p.name)}
                {p.own_key ? ' — your key is set' : p.deployment_key ? ' — deployment key in use' : ''}
              </option>
            ))}
          </select>
        </div>
        <div className="field grow">
          <label className="field-label" htmlFor={ids.key}>
            {chosen?.own_key ? 'Replace key' : 'Key'}
          </label>
          <input
            id={ids.key}
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={key}
            onChange={(event) => setKey(event.target.value)}
            placeholder={
              chosen?.own_key ? '•••••••• (set — paste a new one to replace it)' : 'Paste your key'
            }
            aria-describedby={ids.help}
          />
        </div>
      </div>
      <p className="muted small" id={ids.help}>
        {chosen?.own_key
          ? 'Your own key is set. It is never shown back; paste a new one to replace it.'
          : chosen?.deployment_key
            ? 'The deployment supplies a key for this provider; your own key would take its place for your account.'
            : 'No key set for this provider.'}
        {chosen && !chosen.configured
          ? ' This provider is not enabled on this deployment yet; the key is kept for when it is.'
          : ''}
      </p>
      <FormOutcome error={state.error} done={state.done} />
      <div className="row wrap tight">
        <button type="submit" className="button primary" disabled={state.busy}>
          {chosen?.own_key ? 'Replace key' : 'Save key'}
        </button>
        {chosen?.own_key && (
          <button type="button" className="button ghost danger-text" onClick={remove} disabled={state.busy}>
            Remove key
          </button>
        )}
      </div>
    </form>
  );
}

/** Account: who you are, your upstream key, your API key, your password and sessions, and how to use the API and MCP. */
export default function AccountPage() {
  const [account, setAccount] = useState<AccountInfo>();
  const { error, run } = useAction();
  const [version, setVersion] = useState(0);

  useEffect(() => {
    void version;
    void run(async () => setAccount(await api.get<AccountInfo>('/web/api/account')));
  }, [run, version]);
  const reload = () => setVersion((v) => v + 1);

  if (error) {
    return (
      <div className="page">
        <h1 className="page-title">Account</h1>
        <p className="error-text" role="alert">
          {error}
        </p>
      </div>
    );
  }
  if (!account) {
    return (
      <div className="page">
        <h1 className="page-title">Account</h1>
        <p className="muted">Loading…</p>
      </div>
    );
  }

  const base = account.base_url;
  const curl = [
    `curl -s ${base}/api/v1/generate \\`,
    `  -H "Authorization: Bearer $ATELIER_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"prompt":"a lighthouse at dawn","aspect":"16:9","imageSize":"1K"}'`,
    '',
    '# then poll (every 2–5 s) with a task id from the answer, or watch it here on Create:',
    `curl -s ${base}/api/v1/tasks/<task_id> -H "Authorization: Bearer $ATELIER_API_KEY"`,
  ].join('\n');
  const mcp = JSON.stringify(
    {
      mcpServers: {
        atelier: {
          command: '/path/to/atelier/bin/atelier',
          args: ['mcp'],
          env: { ATELIER_API_KEY: '<your API key>', ATELIER_BASE_URL: base },
        },
      },
    },
    null,
    2,
  );

  return (
    <div className="page narrow">
      <h1 className="page-title">Account</h1>

      <section className="panel stack" aria-labelledby="profile-heading">
        <h2 id="profile-heading">Profile</h2>
        <dl className="params">
          <dt>Email</dt>
          <dd>{account.email}</dd>
          <dt>Tier</dt>
          <dd className="capitalize">{account.tier}</dd>
          <dt>Upstream access</dt>
          <dd>
            {account.has_key ? (
              <span className="success-text">Ready — the default model can run</span>
            ) : (
              <span className="error-inline">Needs an upstream key</span>
            )}
          </dd>
        </dl>
      </section>

      <section className="panel stack" aria-labelledby="usage-heading">
        <h2 id="usage-heading">Usage</h2>
        <UsageSection />
      </section>

      <section className="panel stack" aria-labelledby="upstream-heading">
        <h2 id="upstream-heading">Upstream key</h2>
        {account.upstream.key_required ? (
          <p className="muted">
            The default model runs on {providerName(account.upstream.default_provider)}, which needs a key:
            yours, or one the deployment supplies.
          </p>
        ) : (
          <p className="muted">
            Not needed here: the default model runs on{' '}
            {providerName(account.upstream.default_provider).toLowerCase()}, which takes no key. You can still
            store a key for a provider, for models that use it.
          </p>
        )}
        <UpstreamKeyForm account={account} onSaved={reload} />
      </section>

      <section className="panel stack" aria-labelledby="apikey-heading">
        <h2 id="apikey-heading">API keys</h2>
        <p className="muted">
          For your scripts, backends and agents: one per use, so each can be revoked alone. Keep them on
          servers, never in a web page.
        </p>
        <ApiKeySection account={account} onRotated={reload} />
        <OAuthGrantsSection />
      </section>

      <section className="panel stack" aria-labelledby="spend-confirmation-heading">
        <h2 id="spend-confirmation-heading">Spend confirmation</h2>
        <p className="muted">
          An AI agent working through Atelier's MCP tools asks you first (“4 images at 4K on pro, at most
          $0.96 — go ahead?”) before it makes images that can cost more than this.
        </p>
        <SpendConfirmationSection setting={account.spend_confirmation} />
      </section>

      <section className="panel stack" aria-labelledby="signin-heading">
        <h2 id="signin-heading">Password and sessions</h2>
        <SignInSecurity />
      </section>

      <section className="panel stack" aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">Webhooks</h2>
        <p className="muted">
          Give <code>callbackUrl</code> on generate and Atelier POSTs each task's final record there, signed
          per Standard Webhooks with this secret (headers <code>webhook-id</code>,{' '}
          <code>webhook-timestamp</code>, <code>webhook-signature</code>), retrying failures for about a day.
        </p>
        <WebhooksSection />
      </section>

      <section className="panel stack" aria-labelledby="data-heading">
        <h2 id="data-heading">Your data</h2>
        <AccountDataSection email={account.email} />
      </section>

      <section className="panel stack" aria-labelledby="use-heading">
        <h2 id="use-heading">Use the API</h2>
        <p className="muted">
          Tasks you submit this way appear on Create, marked “API”, and are saved like the others.
        </p>
        <pre className="code">
          <code>{curl}</code>
        </pre>
        <div>
          <CopyButton text={curl} label="Copy commands" className="button small" />
        </div>
        <h3 className="field-label">MCP client configuration</h3>
        <p className="muted small">
          For Claude Desktop and other MCP clients: point <code>command</code> at <code>bin/atelier</code> of
          an Atelier checkout (after <code>npm ci</code>), and put your API key in <code>env</code>.
        </p>
        <pre className="code">
          <code>{mcp}</code>
        </pre>
        <div>
          <CopyButton text={mcp} label="Copy configuration" className="button small" />
        </div>
      </section>
    </div>
  );
}
