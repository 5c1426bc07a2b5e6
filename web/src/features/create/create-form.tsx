import type { FormEvent, ReactNode, RefObject } from 'react';
import { messageOf } from '../../lib/api';
import { addDraftReference, type Draft } from '../../lib/draft';
import { MODE_LABELS, SIZE_HINTS } from '../../lib/format';
import type { TaskCard as Card, Catalog, Mode } from '../../lib/types';
import { ChoiceGroup } from '../../ui/choice-group';
import { SparkIcon } from '../../ui/icons';
import { SettingsFold } from '../../ui/settings-fold';
import type { useAllowance } from './allowance';
import { AllowanceNote } from './allowance-note';
import type { useFittedDraft } from './create-hooks';
import type { usePromptHistory } from './prompt-history';
import type { useLimitedPaste } from './prompt-paste';
import { PromptTools } from './prompt-tools';
import { ReferencePicker } from './reference-picker';
import { RenderingStrip } from './rendering-strip';

export const MAX_PROMPT = 8000;

/** The draft fitted to the catalog: a model's entry, and settings it offers. */
export type Fitted = NonNullable<ReturnType<typeof useFittedDraft>['fitted']>;

function AspectShape({ aspect }: { aspect: string }) {
  const [w, h] = aspect.split(':').map(Number);
  const scale = 14 / Math.max(w ?? 1, h ?? 1);
  return (
    <span
      className="aspect-shape"
      style={{ width: `${(w ?? 1) * scale}px`, height: `${(h ?? 1) * scale}px` }}
      aria-hidden="true"
    />
  );
}

/** What stops a submit, said in a sentence; undefined when the draft can go. */
export function problemOf(prompt: string, refs: readonly string[], fitted: Fitted): string | undefined {
  if (prompt === '') return 'Write a prompt that describes the image.';
  if (fitted.mode === 'edit' && refs.length !== 1)
    return refs.length === 0
      ? 'Edit needs a reference image: add one below.'
      : 'Edit uses exactly one reference image: remove the others.';
  if (fitted.mode === 'fusion' && (refs.length < 2 || refs.length > fitted.entry.maxReferences))
    return `Fusion needs 2 to ${fitted.entry.maxReferences} reference images.`;
  return undefined;
}

/** The prompt: its field (Ctrl+Enter submits, ↑/↓ walk the history), the paste limit, its tools. */
export function PromptField({
  id,
  draft,
  fitted,
  promptRef,
  paste,
  history,
  update,
  setPrompt,
  submit,
}: {
  id: string;
  draft: Draft;
  fitted: Fitted | undefined;
  promptRef: RefObject<HTMLTextAreaElement | null>;
  paste: ReturnType<typeof useLimitedPaste>;
  history: ReturnType<typeof usePromptHistory>;
  update: (patch: Partial<Draft>) => void;
  setPrompt: (prompt: string) => void;
  submit: (event?: FormEvent) => Promise<void>;
}) {
  const ids = { prompt: id };
  return (
    <div className="field">
      <div className="field-label-row">
        <label className="field-label" htmlFor={ids.prompt}>
          Prompt
        </label>
        <span className="muted small" id={`${ids.prompt}-hint`}>
          {draft.prompt.length > MAX_PROMPT * 0.9
            ? `${draft.prompt.length.toLocaleString('en')} / ${MAX_PROMPT.toLocaleString('en')} characters`
            : 'Ctrl+Enter (⌘+Enter) to generate'}
        </span>
      </div>
      <textarea
        id={ids.prompt}
        ref={promptRef}
        rows={4}
        maxLength={MAX_PROMPT}
        placeholder="A lighthouse at dawn, soft pastel light, wide angle"
        value={draft.prompt}
        onChange={(event) => {
          paste.clear();
          history.onType();
          update({ prompt: event.target.value });
        }}
        onPaste={paste.onPaste}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) void submit();
          else void history.onKeyDown(event);
        }}
        aria-describedby={`${ids.prompt}-hint`}
      />
      {paste.message && (
        <p className="error-text" role="alert">
          {paste.message}
        </p>
      )}
      <PromptTools
        current={
          fitted && {
            model: fitted.model,
            mode: fitted.mode,
            aspect: fitted.aspect,
            imageSize: fitted.imageSize,
            count: fitted.count,
          }
        }
        onChoosePrompt={(prompt) => {
          setPrompt(prompt);
          promptRef.current?.focus();
        }}
      />
    </div>
  );
}

/** The model, mode, aspect, size and count, folded under a one-line summary. */
function SettingsFields({
  catalog,
  fitted,
  update,
  ids,
}: {
  catalog: Catalog;
  fitted: Fitted;
  update: (patch: Partial<Draft>) => void;
  ids: { model: string };
}) {
  return (
    <SettingsFold
      summary={`${fitted.model} · ${fitted.aspect} · ${fitted.imageSize} · ×${fitted.count}${fitted.mode === 'text' ? '' : ` · ${MODE_LABELS[fitted.mode] ?? fitted.mode}`}`}
    >
      <div className="field">
        <label className="field-label" htmlFor={ids.model}>
          Model
        </label>
        <select
          id={ids.model}
          value={fitted.model}
          onChange={(event) => update({ model: event.target.value })}
        >
          {catalog.models.map((model) => (
            <option key={model.id} value={model.id}>
              {model.name}
              {model.id === catalog.default_model ? ' (default)' : ''}
            </option>
          ))}
        </select>
      </div>
      {fitted.entry.modes.length > 1 && (
        <ChoiceGroup
          legend="Mode"
          name="mode"
          value={fitted.mode}
          onChange={(mode) => update({ mode: mode as Mode })}
          choices={fitted.entry.modes.map((mode) => ({
            value: mode,
            label: MODE_LABELS[mode] ?? mode,
          }))}
        />
      )}
      <ChoiceGroup
        legend="Aspect ratio"
        name="aspect"
        value={fitted.aspect}
        onChange={(aspect) => update({ aspect })}
        choices={fitted.entry.aspects.map((aspect) => ({
          value: aspect,
          ariaLabel: aspect,
          label: (
            <>
              <AspectShape aspect={aspect} />
              {aspect}
            </>
          ),
        }))}
      />
      <div className="field-pair">
        <ChoiceGroup
          legend="Size"
          name="imageSize"
          value={fitted.imageSize}
          onChange={(imageSize) => update({ imageSize })}
          choices={fitted.entry.sizes.map((size) => ({
            value: size,
            label: size,
            hint: SIZE_HINTS[size] ?? '',
          }))}
        />
        <ChoiceGroup
          legend="Images"
          name="count"
          value={String(fitted.count)}
          onChange={(count) => update({ count: Number(count) })}
          choices={Array.from({ length: fitted.entry.maxCount }, (_, i) => ({
            value: String(i + 1),
            label: String(i + 1),
          }))}
        />
      </div>
    </SettingsFold>
  );
}

/** The settings (once the catalog is read) and the references, where the model takes any. */
export function ModelSettings({
  catalog,
  catalogError,
  fitted,
  draft,
  update,
  setError,
  ids,
}: {
  catalog: Catalog | null | undefined;
  catalogError: unknown;
  fitted: Fitted | undefined;
  draft: Draft;
  update: (patch: Partial<Draft>) => void;
  setError: (error: string | undefined) => void;
  ids: { model: string };
}) {
  if (catalogError)
    return (
      <p className="error-text" role="alert">
        Cannot load the models: {messageOf(catalogError)}
      </p>
    );
  if (!catalog || !fitted) return <p className="muted">Loading models…</p>;
  return (
    <>
      <SettingsFields catalog={catalog} fitted={fitted} update={update} ids={ids} />
      {fitted.entry.modes.some((mode) => mode !== 'text') && (
        <ReferencePicker
          references={draft.references}
          mode={fitted.mode}
          maxReferences={fitted.entry.maxReferences}
          onAdd={(reference) => {
            setError(undefined);
            if (fitted.mode === 'text' && !fitted.entry.modes.includes('edit')) return;
            addDraftReference(reference);
          }}
          onRemove={(url) => update({ references: draft.references.filter((r) => r.url !== url) })}
        />
      )}
    </>
  );
}

/** The form's foot, sticky while the form is taller than the screen: the error, what renders, the allowance, Generate. */
export function FormActions({
  error,
  cards,
  running,
  allowance,
  submitting,
  fitted,
  exhausted,
  ids,
}: {
  error: string | undefined;
  cards: Card[];
  running: number;
  allowance: ReturnType<typeof useAllowance>;
  submitting: boolean;
  fitted: Fitted | undefined;
  exhausted: boolean;
  ids: { error: string; allowance: string };
}): ReactNode {
  return (
    <div className="form-actions">
      {error && (
        <p className="error-text form-error" role="alert" id={ids.error}>
          {error}
        </p>
      )}
      {running > 0 && <RenderingStrip cards={cards} />}
      <AllowanceNote allowance={allowance} id={ids.allowance} />
      <button
        type="submit"
        className="button primary large"
        disabled={submitting || !fitted || exhausted}
        aria-describedby={allowance ? ids.allowance : undefined}
      >
        <SparkIcon />
        {submitting
          ? 'Submitting…'
          : fitted && fitted.count > 1
            ? `Generate ${fitted.count} images`
            : 'Generate'}
      </button>
    </div>
  );
}
