import { type FormEvent, useId, useState } from 'react';
import { api } from '../../lib/api';
import type { AccountInfo } from '../../lib/types';
import { useAction } from '../../lib/use-action';
import { FormOutcome } from '../../ui/form-fields';

type SpendConfirmation = AccountInfo['spend_confirmation'];

const dollarsOf = (micros: number) => (micros / 1_000_000).toFixed(2);

/**
 * When an AI agent must ask you before it spends (MCP elicitation): one threshold, and whether
 * hosts signed in to Atelier and agents holding an API key ask (docs/mcp.md "Spend confirmation").
 */
export function SpendConfirmationSection({ setting }: { setting: SpendConfirmation }) {
  const [above, setAbove] = useState(dollarsOf(setting.above_micros));
  const [signIn, setSignIn] = useState(setting.sign_in);
  const [apiKeys, setApiKeys] = useState(setting.api_keys);
  const state = useAction();
  const ids = { above: useId(), help: useId(), signIn: useId(), apiKeys: useId() };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const dollars = Number(above);
    if (above.trim() === '' || !Number.isFinite(dollars) || dollars < 0)
      return state.fail('Enter an amount in dollars, 0 or more (for example 0.50).');
    await state.run(async () => {
      const saved = await api.put<SpendConfirmation>('/web/api/account/spend-confirmation', {
        above_micros: Math.round(dollars * 1_000_000),
        sign_in: signIn,
        api_keys: apiKeys,
      });
      setAbove(dollarsOf(saved.above_micros));
      if (!saved.sign_in && !saved.api_keys) return 'Saved. Agents will no longer ask before spending.';
      return `Saved. Agents ask before a call that can cost more than $${dollarsOf(saved.above_micros)}.`;
    });
  };

  return (
    <form className="stack" onSubmit={save}>
      <div className="field">
        <label className="field-label" htmlFor={ids.above}>
          Ask before a call that can cost more than (USD)
        </label>
        <input
          id={ids.above}
          type="number"
          inputMode="decimal"
          step="0.01"
          value={above}
          onChange={(event) => {
            setAbove(event.target.value);
            state.reset();
          }}
          aria-describedby={ids.help}
        />
      </div>
      <p className="muted small" id={ids.help}>
        0 asks before every paid call. The price asked about is the most the call can cost (the same figure as
        a quote). Hosts that cannot ask get an error naming this setting, and nothing is spent.
      </p>
      <div className="row tight">
        <input
          id={ids.signIn}
          type="checkbox"
          checked={signIn}
          onChange={(e) => setSignIn(e.target.checked)}
        />
        <label htmlFor={ids.signIn}>
          Ask in apps signed in to Atelier (Claude, ChatGPT and other MCP hosts)
        </label>
      </div>
      <div className="row tight">
        <input
          id={ids.apiKeys}
          type="checkbox"
          checked={apiKeys}
          onChange={(e) => setApiKeys(e.target.checked)}
        />
        <label htmlFor={ids.apiKeys}>
          Ask agents that use an API key too (the local MCP server, scripts)
        </label>
      </div>
      <FormOutcome error={state.error} done={state.done} />
      <div>
        <button type="submit" className="button primary" disabled={state.busy}>
          Save
        </button>
      </div>
    </form>
  );
}
