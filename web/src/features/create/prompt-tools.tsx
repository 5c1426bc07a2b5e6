import { type FormEvent, useEffect, useId, useState } from 'react';
import { createPortal } from 'react-dom';
import { messageOf } from '../../lib/api';
import { shortText } from '../../lib/text';
import type { PresetSettings } from '../../lib/types';
import { useAction } from '../../lib/use-action';
import { Dialog } from '../../ui/dialog';
import { FormOutcome } from '../../ui/form-fields';
import { applyPreset, usePresets } from './presets';
import { recentPrompts } from './prompt-history';
import './prompt-tools.css';

/** "Recent prompts": the account's past prompts, searchable; choosing one fills the prompt. */
function RecentPromptsDialog({
  onChoose,
  onClose,
}: {
  onChoose: (prompt: string) => void;
  onClose: () => void;
}) {
  const [q, setQ] = useState('');
  const [prompts, setPrompts] = useState<string[]>();
  const [error, setError] = useState<string>();
  const searchId = useId();
  useEffect(() => {
    const controller = new AbortController();
    recentPrompts(q, 50, controller.signal)
      .then((found) => {
        setPrompts(found);
        setError(undefined);
      })
      .catch((failure) => {
        if ((failure as Error).name !== 'AbortError') setError(messageOf(failure));
      });
    return () => controller.abort();
  }, [q]);
  return (
    <Dialog title="Recent prompts" onClose={onClose}>
      <div className="stack">
        {/* Its own form, so Enter in the search does not submit Create's form around the dialog. */}
        <form
          className="field"
          onSubmit={(event) => {
            event.preventDefault();
            event.stopPropagation();
          }}
        >
          <label className="field-label" htmlFor={searchId}>
            Search recent prompts
          </label>
          <input
            id={searchId}
            type="search"
            value={q}
            onChange={(event) => setQ(event.target.value)}
            placeholder="Words of the prompt"
            data-autofocus
          />
        </form>
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        {prompts === undefined ? (
          <p className="muted">Loading…</p>
        ) : prompts.length === 0 ? (
          <p className="muted">{q.trim() ? 'No past prompt has these words.' : 'No prompts yet.'}</p>
        ) : (
          <ul className="recent-prompts" aria-label="Recent prompts">
            {prompts.map((prompt) => (
              <li key={prompt}>
                <button
                  type="button"
                  className="recent-prompt"
                  title={prompt}
                  aria-label={`Use prompt: ${shortText(prompt)}`}
                  onClick={() => onChoose(prompt)}
                >
                  {prompt}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Dialog>
  );
}

/** "Presets": named settings of the form (server-side, per account): apply, delete, save the current ones. */
function PresetsDialog({ current, onClose }: { current: PresetSettings | undefined; onClose: () => void }) {
  const { presets, error, save, remove } = usePresets(true);
  const [name, setName] = useState('');
  const [suffix, setSuffix] = useState('');
  const saving = useAction();
  const ids = { name: useId(), suffix: useId() };
  const submit = (event: FormEvent) => {
    // The dialog sits inside Create's form: its submit must not bubble to Generate.
    event.preventDefault();
    event.stopPropagation();
    if (!current) return;
    if (name.trim() === '') {
      saving.fail('Name the preset.');
      return;
    }
    const trimmed = suffix.trim();
    void saving
      .run(async () => {
        await save(name, { ...current, ...(trimmed ? { suffix: trimmed } : {}) });
        return `Saved “${name.trim()}”.`;
      })
      .then((ok) => {
        if (ok) {
          setName('');
          setSuffix('');
        }
      });
  };
  return (
    <Dialog title="Presets" onClose={onClose}>
      <div className="stack">
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        {presets === undefined ? (
          <p className="muted">Loading…</p>
        ) : presets.length === 0 ? (
          <p className="muted">No presets yet: save the current settings below.</p>
        ) : (
          <ul className="preset-list" aria-label="Presets">
            {presets.map((preset) => (
              <li key={preset.name} className="preset-row">
                <div className="preset-text">
                  <strong>{preset.name}</strong>
                  <span className="muted small">
                    {preset.model} · {preset.aspect} · {preset.imageSize} · ×{preset.count}
                    {preset.suffix ? ` · “${shortText(preset.suffix, 40)}”` : ''}
                  </span>
                </div>
                <button
                  type="button"
                  className="button small primary"
                  aria-label={`Apply preset ${preset.name}`}
                  onClick={() => {
                    applyPreset(preset);
                    onClose();
                  }}
                >
                  Apply
                </button>
                <button
                  type="button"
                  className="button small ghost"
                  aria-label={`Delete preset ${preset.name}`}
                  onClick={() => void saving.run(() => remove(preset.name))}
                >
                  Delete
                </button>
              </li>
            ))}
          </ul>
        )}
        <form className="stack preset-save" onSubmit={submit} noValidate>
          <h3 className="preset-save-title">Save the current settings</h3>
          {current && (
            <p className="muted small">
              {current.model} · {current.aspect} · {current.imageSize} · ×{current.count}
            </p>
          )}
          <div className="field">
            <label className="field-label" htmlFor={ids.name}>
              Preset name
            </label>
            <input
              id={ids.name}
              value={name}
              maxLength={60}
              onChange={(event) => setName(event.target.value)}
            />
          </div>
          <div className="field">
            <label className="field-label" htmlFor={ids.suffix}>
              Style suffix (optional, added after the prompt)
            </label>
            <input
              id={ids.suffix}
              value={suffix}
              maxLength={1000}
              placeholder=", watercolour, soft morning light"
              onChange={(event) => setSuffix(event.target.value)}
            />
          </div>
          <FormOutcome error={saving.error} done={saving.done} />
          <div className="row end">
            <button type="submit" className="button primary" disabled={saving.busy || !current}>
              Save preset
            </button>
          </div>
        </form>
      </div>
    </Dialog>
  );
}

/** The prompt's tools under its label: recent prompts and presets, each in a dialog. */
export function PromptTools({
  current,
  onChoosePrompt,
}: {
  current: PresetSettings | undefined;
  onChoosePrompt: (prompt: string) => void;
}) {
  const [open, setOpen] = useState<'recent' | 'presets'>();
  return (
    <div className="prompt-tools">
      <button type="button" className="button small ghost" onClick={() => setOpen('recent')}>
        Recent prompts
      </button>
      <button type="button" className="button small ghost" onClick={() => setOpen('presets')}>
        Presets
      </button>
      {/* In a portal: the dialogs' forms are not nested in Create's form (Enter or Save would submit it). */}
      {open === 'recent' &&
        createPortal(
          <RecentPromptsDialog
            onClose={() => setOpen(undefined)}
            onChoose={(prompt) => {
              setOpen(undefined);
              onChoosePrompt(prompt);
            }}
          />,
          document.body,
        )}
      {open === 'presets' &&
        createPortal(<PresetsDialog current={current} onClose={() => setOpen(undefined)} />, document.body)}
    </div>
  );
}
