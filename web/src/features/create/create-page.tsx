import { type FormEvent, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { messageOf } from '../../lib/api';
import { useCatalog } from '../../lib/catalog';
import { addDraftReference, type Draft, draftStore } from '../../lib/draft';
import { MODE_LABELS, SIZE_HINTS } from '../../lib/format';
import { useStore } from '../../lib/store';
import { clearFinished, createStreamingTaskFeed, tasksStore } from '../../lib/tasks';
import type { TaskCard as Card, Mode } from '../../lib/types';
import { isFinalStatus } from '../../lib/vocabulary';
import { ChoiceGroup } from '../../ui/choice-group';
import { SparkIcon } from '../../ui/icons';
import { SettingsFold } from '../../ui/settings-fold';
import { deleteWorkOfCards } from '../lightbox/item-actions';
import { Lightbox } from '../lightbox/lightbox';
import { itemsOfCards } from '../lightbox/lightbox-items';
import { catalogForAllowance, imagesLeft, useAllowance } from './allowance';
import { AllowanceNote } from './allowance-note';
import { submitGenerate } from './batch-actions';
import { BatchList } from './batch-list';
import { useCompletionAnnouncements, useFittedDraft } from './create-hooks';
import { usePromptHistory } from './prompt-history';
import { useLimitedPaste } from './prompt-paste';
import { PromptTools } from './prompt-tools';
import { ReferencePicker } from './reference-picker';
import { RenderingStrip } from './rendering-strip';

const MAX_PROMPT = 8000;

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

/** The image-creation view: the form, and live cards of every pending task of the account. */
export default function CreatePage() {
  const { catalog: fullCatalog, error: catalogError } = useCatalog();
  const { cards, hasMore } = useStore(tasksStore);
  const running = cards.filter((c) => !isFinalStatus(c.status)).length;
  const allowance = useAllowance(`${cards.length}:${running}`);
  const catalog = useMemo(
    () => fullCatalog && catalogForAllowance(fullCatalog, allowance),
    [fullCatalog, allowance],
  );
  const exhausted = imagesLeft(allowance) === 0;
  const { draft, fitted } = useFittedDraft(catalog);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string>();
  const [viewing, setViewing] = useState<Card>();
  const promptRef = useRef<HTMLTextAreaElement>(null);
  const ids = { prompt: useId(), model: useId(), count: useId(), error: useId(), allowance: useId() };
  const announcement = useCompletionAnnouncements(cards);

  const feed = useMemo(() => createStreamingTaskFeed(), []);
  useEffect(() => {
    feed.start();
    return () => feed.stop();
  }, [feed]);

  const update = useCallback((patch: Partial<Draft>) => {
    setError(undefined);
    draftStore.set((current) => ({ ...current, ...patch }));
  }, []);
  const paste = useLimitedPaste(MAX_PROMPT, (prompt) => update({ prompt }));
  const setPrompt = useCallback((prompt: string) => update({ prompt }), [update]);
  const history = usePromptHistory(draft.prompt, setPrompt);

  const takeAsReference = useCallback((card: Card) => {
    if (!card.imageUrl) return;
    addDraftReference({
      url: card.imageUrl,
      name: card.prompt,
      width: card.width,
      height: card.height,
      bytes: card.bytes,
    });
    promptRef.current?.focus();
  }, []);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    if (!fitted || submitting) return;
    const prompt = draft.prompt.trim();
    const refs = draft.references.map((r) => r.url);
    let problem: string | undefined;
    if (prompt === '') problem = 'Write a prompt that describes the image.';
    else if (fitted.mode === 'edit' && refs.length !== 1)
      problem =
        refs.length === 0
          ? 'Edit needs a reference image: add one below.'
          : 'Edit uses exactly one reference image: remove the others.';
    else if (fitted.mode === 'fusion' && (refs.length < 2 || refs.length > fitted.entry.maxReferences))
      problem = `Fusion needs 2 to ${fitted.entry.maxReferences} reference images.`;
    if (problem) {
      setError(problem);
      if (prompt === '') promptRef.current?.focus();
      return;
    }
    setSubmitting(true);
    setError(undefined);
    const body = {
      prompt,
      model: fitted.model,
      mode: fitted.mode,
      aspect: fitted.aspect,
      imageSize: fitted.imageSize,
      count: fitted.count,
      imageUrls: fitted.mode === 'text' ? [] : refs,
    };
    try {
      await submitGenerate(body);
      feed.refresh();
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setSubmitting(false);
    }
  }

  return (
    <div className="create-layout">
      <form
        className="panel create-form"
        onSubmit={submit}
        noValidate
        aria-describedby={error ? ids.error : undefined}
      >
        <h1 className="page-title">Create</h1>
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

        {catalogError ? (
          <p className="error-text" role="alert">
            Cannot load the models: {messageOf(catalogError)}
          </p>
        ) : !catalog || !fitted ? (
          <p className="muted">Loading models…</p>
        ) : (
          <>
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
        )}

        {/* Sticky at the bottom of the screen while the form is taller than it: Generate stays in view. */}
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
      </form>

      <BatchList
        cards={cards}
        hasMore={hasMore === true}
        announcement={announcement}
        onOpen={setViewing}
        onUseAsReference={takeAsReference}
        onSubmitted={() => feed.refresh()}
        onClear={() => clearFinished().catch(() => feed.refresh())}
      />

      {viewing && (
        <Lightbox
          items={itemsOfCards(cards)}
          startKey={viewing.task_id}
          onClose={() => setViewing(undefined)}
          onDelete={(item) => deleteWorkOfCards(item.workId ?? '')}
        />
      )}
    </div>
  );
}
