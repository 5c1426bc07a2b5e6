import {
  type FormEvent,
  type RefObject,
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
} from 'react';
import { messageOf } from '../../lib/api';
import { useCatalog } from '../../lib/catalog';
import { addDraftReference, type Draft, draftStore } from '../../lib/draft';
import { useStore } from '../../lib/store';
import { clearFinished, createStreamingTaskFeed, type TaskFeed, tasksStore } from '../../lib/tasks';
import type { TaskCard as Card } from '../../lib/types';
import { isFinalStatus } from '../../lib/vocabulary';
import { deleteWorkOfCards } from '../lightbox/item-actions';
import { Lightbox } from '../lightbox/lightbox';
import { itemsOfCards } from '../lightbox/lightbox-items';
import { catalogForAllowance, imagesLeft, useAllowance } from './allowance';
import { submitGenerate } from './batch-actions';
import { BatchList } from './batch-list';
import { type Fitted, FormActions, MAX_PROMPT, ModelSettings, PromptField, problemOf } from './create-form';
import { useCompletionAnnouncements, useFittedDraft } from './create-hooks';
import { usePromptHistory } from './prompt-history';
import { useLimitedPaste } from './prompt-paste';

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
  const { draft, fitted } = useFittedDraft(catalog);
  const [viewing, setViewing] = useState<{ card: Card; refine: boolean }>(); // refine: its field open
  const open = useCallback((card: Card, refine = false) => setViewing({ card, refine }), []);
  const promptRef = useRef<HTMLTextAreaElement>(null);
  const ids = { prompt: useId(), model: useId(), count: useId(), error: useId(), allowance: useId() };
  const announcement = useCompletionAnnouncements(cards);
  const feed = useTaskFeed();
  const form = useCreateForm(draft, fitted, promptRef, feed);
  const paste = useLimitedPaste(MAX_PROMPT, (prompt) => form.update({ prompt }));
  const history = usePromptHistory(draft.prompt, form.setPrompt);

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

  return (
    <div className="create-layout">
      <form
        className="panel create-form"
        onSubmit={form.submit}
        noValidate
        aria-describedby={form.error ? ids.error : undefined}
      >
        <h1 className="page-title">Create</h1>
        <PromptField
          id={ids.prompt}
          draft={draft}
          fitted={fitted}
          promptRef={promptRef}
          paste={paste}
          history={history}
          update={form.update}
          setPrompt={form.setPrompt}
          submit={form.submit}
        />
        <ModelSettings
          catalog={catalog}
          catalogError={catalogError}
          fitted={fitted}
          draft={draft}
          update={form.update}
          setError={form.setError}
          ids={ids}
        />
        <FormActions
          error={form.error}
          cards={cards}
          running={running}
          allowance={allowance}
          submitting={form.submitting}
          fitted={fitted}
          exhausted={imagesLeft(allowance) === 0}
          ids={ids}
        />
      </form>

      <BatchList
        cards={cards}
        hasMore={hasMore === true}
        announcement={announcement}
        onOpen={open}
        onUseAsReference={takeAsReference}
        onSubmitted={() => feed.refresh()}
        onClear={() => clearFinished().catch(() => feed.refresh())}
      />

      {viewing && (
        <Lightbox
          items={itemsOfCards(cards)}
          startKey={viewing.card.task_id}
          refineOnOpen={viewing.refine}
          onClose={() => setViewing(undefined)}
          onDelete={(item) => deleteWorkOfCards(item.workId ?? '')}
        />
      )}
    </div>
  );
}

/** The account's tasks, followed while Create is shown. */
function useTaskFeed(): TaskFeed {
  const feed = useMemo(() => createStreamingTaskFeed(), []);
  useEffect(() => {
    feed.start();
    return () => feed.stop();
  }, [feed]);
  return feed;
}

/** The form's changes and its submit: the draft's patches, the error said, the request sent. */
function useCreateForm(
  draft: Draft,
  fitted: Fitted | undefined,
  promptRef: RefObject<HTMLTextAreaElement | null>,
  feed: TaskFeed,
) {
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string>();
  const update = useCallback((patch: Partial<Draft>) => {
    setError(undefined);
    draftStore.set((current) => ({ ...current, ...patch }));
  }, []);
  const setPrompt = useCallback((prompt: string) => update({ prompt }), [update]);

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    if (!fitted || submitting) return;
    const prompt = draft.prompt.trim();
    const refs = draft.references.map((r) => r.url);
    const problem = problemOf(prompt, refs, fitted);
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
  return { submitting, error, setError, update, setPrompt, submit };
}
