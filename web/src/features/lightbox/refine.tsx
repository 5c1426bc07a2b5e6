import { type KeyboardEvent, type RefObject, useEffect, useId, useRef, useState } from 'react';
import { messageOf } from '../../lib/api';
import { fetchWork } from '../../lib/work-link';
import { SparkIcon } from '../../ui/icons';
import type { LightboxItem, WorkSettings } from './lightbox-items';
import { VersionsStrip } from './versions-strip';
import './refine.css';
import {
  finalRecord,
  itemOfVersion,
  type RefineBasis,
  submitRefinement,
  useVersions,
  type WorkVersion,
  withImageOf,
} from './versions';

/** The longest instruction the field takes (a turn, not a whole prompt). */
const MAX_INSTRUCTION = 1000;

/**
 * Refine (issue 44): the shown image's next version from a short instruction (`N` opens the field,
 * Enter sends, Esc closes), and the versions strip of the work's chain. A version picked in the
 * strip is shown in place of the list's item until the person moves in the list.
 */
export function useRefine(
  listItem: LightboxItem | undefined,
  say: (message: string) => void,
  openAtFirst: boolean,
) {
  const [shown, setShown] = useState<LightboxItem>();
  const [open, setOpen] = useState(openAtFirst);
  const { pending, setPending, reload, follow } = usePendingVersion(say);
  const toggle = useRef<HTMLButtonElement>(null);
  const strip = useRef<HTMLOListElement>(null);
  const anchor = listItem?.kind === 'result' ? listItem.workId : null;
  const versions = useVersions(anchor, reload);
  const listKey = listItem?.key;

  /** The field closed (sent or Esc): focus goes back to the Refine button once it is rendered again. */
  const refocus = useRef(false);
  useEffect(() => {
    if (open || !refocus.current) return;
    refocus.current = false;
    toggle.current?.focus();
  }, [open]);
  // Moving in the list shows the list's item, the field closed.
  const lastKey = useRef(listKey);
  useEffect(() => {
    if (lastKey.current === listKey) return;
    lastKey.current = listKey;
    setShown(undefined);
    setOpen(false);
  }, [listKey]);

  const show = (version: WorkVersion) => {
    if (!listItem || !versions) return;
    if (version.id === listItem.workId) return setShown(undefined);
    const item = itemOfVersion(version, versions.indexOf(version), listItem);
    setShown(item);
    // Its image's size and task, read with the work (a deleted version keeps what the strip knows).
    void fetchWork(version.id).then(
      (work) => setShown((now) => (now?.key === item.key ? withImageOf(now, work) : now)),
      () => undefined,
    );
  };

  // The finished refinement shows once the strip has it: the next refinement starts from it.
  useEffect(() => {
    const made = pending?.imageUrl && versions?.find((v) => v.images.includes(pending.imageUrl ?? ''));
    if (!made || !versions) return;
    setPending(undefined);
    show(made);
    say(`Version ${versions.indexOf(made) + 1} is ready.`);
  });

  const refine = async (item: LightboxItem, basis: RefineBasis, instruction: string) => {
    const parentId = item.taskId ?? item.workId ?? '';
    const taskId = await submitRefinement(parentId, basis, instruction);
    refocus.current = true;
    setOpen(false);
    follow(taskId, 'Making the next version…');
  };

  const close = () => {
    refocus.current = true;
    setOpen(false);
  };
  /** `V`: focus the strip's current version (the arrows then walk it). */
  const focusStrip = () => {
    const current = strip.current?.querySelector<HTMLElement>('[aria-current="true"]');
    if (current) current.focus();
    else say('This work has no other versions yet.');
  };
  return {
    shown,
    open,
    setOpen,
    close,
    versions,
    pending,
    refine,
    follow,
    show,
    focusStrip,
    toggle,
    strip,
  };
}
export type Refine = ReturnType<typeof useRefine>;

/**
 * The new version under way (a refinement's, an action's): its task, then (completed) its image,
 * until the strip shows it; `reload` moves when the strip should be read again.
 */
function usePendingVersion(say: (message: string) => void) {
  const [reload, setReload] = useState(0);
  const [pending, setPending] = useState<{ taskId: string; imageUrl?: string | undefined }>();
  const live = useRef(true);
  useEffect(
    () => () => {
      live.current = false;
    },
    [],
  );
  /** Follows a new version's task (a refinement's, an action's): pending in the strip until it completes. */
  const follow = (taskId: string, started: string) => {
    setPending({ taskId });
    say(started);
    void finalRecord(taskId, () => live.current).then(
      (record) => {
        if (!record || !live.current) return;
        if (record.status !== 'completed') {
          setPending(undefined);
          return say(`The new version did not finish: ${record.error ?? record.status}.`);
        }
        setPending({ taskId, imageUrl: record.imageUrl });
        setReload((n) => n + 1);
      },
      (failure: unknown) => {
        setPending(undefined);
        say(`The new version could not be followed: ${messageOf(failure)}`);
      },
    );
  };
  return { pending, setPending, reload, follow };
}

/** Whether the item shown can be refined: a finished image of a work. */
export const canRefine = (item: LightboxItem) => item.kind === 'result' && !!item.url && !!item.workId;

/** The Refine button (or its field) and, for a work with versions, the strip. */
export function RefinePanel({
  refine,
  item,
  settings,
}: {
  refine: Refine;
  item: LightboxItem;
  settings: WorkSettings | undefined;
}) {
  const { versions, open, pending } = refine;
  const own = versions?.find((v) => v.id === item.workId);
  const basis: RefineBasis | undefined = settings ?? own;
  return (
    <section className="refine" aria-label="Refine">
      {open && basis ? (
        <RefineForm
          onSubmit={(instruction) => refine.refine(item, basis, instruction)}
          onClose={refine.close}
        />
      ) : (
        <button
          ref={refine.toggle}
          type="button"
          className="button small"
          onClick={() => refine.setOpen(true)}
          disabled={!canRefine(item) || !basis}
          aria-keyshortcuts="N"
        >
          <SparkIcon /> Refine{' '}
          <span className="lightbox-key" aria-hidden="true">
            N
          </span>
        </button>
      )}
      {versions && (versions.length > 1 || pending) && (
        <VersionsStrip
          versions={versions}
          currentId={item.workId}
          pending={pending !== undefined}
          onShow={refine.show}
          list={refine.strip}
        />
      )}
    </section>
  );
}

/** The instruction's field: focused when it opens; Enter sends it, Esc closes it. */
function RefineForm({
  onSubmit,
  onClose,
}: {
  onSubmit: (instruction: string) => Promise<void>;
  onClose: () => void;
}) {
  const id = useId();
  const input: RefObject<HTMLInputElement | null> = useRef(null);
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  useEffect(() => input.current?.focus(), []);
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Escape') return;
    // Esc closes the field only, not the lightbox.
    event.preventDefault();
    event.stopPropagation();
    onClose();
  };
  return (
    <form
      className="refine-form"
      onSubmit={(event) => {
        event.preventDefault();
        const instruction = input.current?.value.trim() ?? '';
        if (!instruction) return setState({ busy: false, error: 'Say what should change.' });
        setState({ busy: true });
        onSubmit(instruction).catch((failure: unknown) =>
          setState({ busy: false, error: messageOf(failure) }),
        );
      }}
    >
      <label htmlFor={id}>What should change in the next version?</label>
      <div className="refine-row">
        <input
          ref={input}
          id={id}
          type="text"
          maxLength={MAX_INSTRUCTION}
          placeholder="e.g. make the sky darker"
          autoComplete="off"
          data-autofocus-first
          aria-describedby={state.error ? `${id}-error` : undefined}
          aria-invalid={state.error ? true : undefined}
          onKeyDown={onKeyDown}
        />
        <button type="submit" className="button small primary" disabled={state.busy}>
          Refine
        </button>
        <button type="button" className="button small" onClick={onClose}>
          Cancel
        </button>
      </div>
      {state.error && (
        <p id={`${id}-error`} className="refine-error" role="alert">
          {state.error}
        </p>
      )}
    </form>
  );
}
