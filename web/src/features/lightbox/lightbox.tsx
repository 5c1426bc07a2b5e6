import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { shortText } from '../../lib/text';
import { REVEAL_EVENT, type RevealRequest } from '../../ui/grid/virtual-rows';
import { CloseIcon } from '../../ui/icons';
import { DeleteConfirm, LightboxActions } from './actions';
import { CompareView, useCompare } from './compare';
import { LightboxDetails } from './details';
import { useLightboxPosition } from './lightbox-hooks';
import {
  addAsReference,
  type LightboxItem,
  reuseSettings,
  type WorkSettings,
  workSettings,
} from './lightbox-items';
import { ShortcutsDialog } from './shortcuts';
import { LightboxStage } from './stage';
import { WorkStar } from './work-star';
import './lightbox.css';

const PAN_STEP_PX = 120;

export interface LightboxProps {
  /** The page's current list, in its order. */
  items: readonly LightboxItem[];
  /** The item that was opened. */
  startKey: string;
  onClose: () => void;
  /** Loads the list's next page (Saved works, Library): asked for when → passes the last loaded item. */
  loadMore?: (() => void) | undefined;
  hasMore?: boolean | undefined;
  loading?: boolean | undefined;
  /** The list's full length when known (the counter's "of"). */
  total?: number | undefined;
  /** Deletes the item's work (an upload: the upload) once the confirmation is answered; absent: no Delete. */
  onDelete?: ((item: LightboxItem) => Promise<void>) | undefined;
  /** Extra actions for the item shown (the slot a favourite's star goes in). */
  actions?: ((item: LightboxItem) => ReactNode) | undefined;
  /** Opens in compare mode with these items side by side (two to four keys of `items`). */
  compareKeys?: readonly string[] | undefined;
}

/**
 * One lightbox for Create, Saved works and the Library: the list's images one at a time, ←/→ and
 * swipe, zoom to 100 % and pan, the metadata panel, actions with shortcuts and `?` for their list.
 * A native modal <dialog>: the browser keeps focus inside; Esc closes, and focus goes back to the
 * card of the image shown (the one that opened it when the person did not move).
 */
export function Lightbox({
  items,
  startKey,
  onClose,
  loadMore,
  hasMore,
  loading,
  total,
  onDelete,
  actions,
  compareKeys,
}: LightboxProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const stage = useRef<HTMLDivElement>(null);
  const download = useRef<HTMLAnchorElement>(null);
  const ids = { title: useId(), counter: useId(), details: useId() };
  const position = useLightboxPosition({ items, startKey, hasMore, loading, loadMore });
  const { item, index } = position;
  const compare = useCompare(items, compareKeys);
  const [zoomed, setZoomed] = useState(false);
  const [showDetails, setShowDetails] = useState(true);
  const [shortcuts, setShortcuts] = useState(false);
  const [confirming, setConfirming] = useState<LightboxItem>();
  const [deleteState, setDeleteState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const [status, setStatus] = useState('');
  const [fetched, setFetched] = useState<{ workId: string; settings: WorkSettings | null }>();
  /** Where focus returns on close: the shown item's card, else the opener. */
  const returnTo = useRef('');
  returnTo.current = item?.focusSelector ?? returnTo.current;
  /** The shown item's ids (its key, its work): a virtualised grid scrolls its card back into view. */
  const returnIds = useRef<string[]>([]);
  if (item) returnIds.current = [item.key, ...(item.workId ? [item.workId] : [])];

  useEffect(() => {
    const element = dialog.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (element && !element.open) element.showModal();
    // showModal() focuses the first button (zoom); the keyboard's way through starts on Next.
    element?.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => {
      // The card of the image shown, if it is on the page; else the opener; else the page's heading.
      const card = returnTo.current ? document.querySelector<HTMLElement>(returnTo.current) : null;
      const target = card ?? (opener?.isConnected ? opener : document.querySelector<HTMLElement>('h1'));
      if (target && !target.hasAttribute('tabindex') && target.tagName === 'H1') target.tabIndex = -1;
      target?.focus();
      // The card is outside a virtualised grid's window: the grid scrolls to it (after the focus
      // above, which scrolls to its own target) and moves focus there once it is rendered.
      if (!card && returnTo.current)
        window.dispatchEvent(
          new CustomEvent<RevealRequest>(REVEAL_EVENT, {
            detail: { ids: returnIds.current, selector: returnTo.current },
          }),
        );
    };
  }, []);

  // The list emptied (its last work deleted): nothing left to show.
  useEffect(() => {
    if (items.length === 0) onClose();
  }, [items.length, onClose]);

  // A new image shows fitted, and the list's own settings are completed from Saved works when the
  // list does not carry them (a Library result; a Create card's references).
  const workId = item?.workId ?? null;
  const needsSettings = item !== undefined && item.kind === 'result' && item.settings?.refs === undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new image (key) shows fitted.
  useEffect(() => setZoomed(false), [item?.key]);
  useEffect(() => {
    if (!workId || !needsSettings) return;
    let live = true;
    void workSettings(workId).then((settings) => {
      if (live) setFetched({ workId, settings });
    });
    return () => {
      live = false;
    };
  }, [workId, needsSettings]);

  // The neighbours load ahead, so ← and → show them at once.
  const neighbours = [items[index - 1]?.url, items[index + 1]?.url].join(' ');
  useEffect(() => {
    for (const url of neighbours.split(' ').filter(Boolean)) new Image().src = url;
  }, [neighbours]);

  if (!item) return null;
  const settings = (fetched?.workId === item.workId ? fetched.settings : undefined) ?? item.settings;
  const known = fetched?.workId === item.workId || !needsSettings;

  const say = (message: string) => setStatus((previous) => (previous === message ? `${message} ` : message));
  const copy = async (text: string, what: string) => {
    try {
      await navigator.clipboard.writeText(text);
      say(`${what} copied`);
    } catch {
      say(`Could not copy the ${what.toLowerCase()}`);
    }
  };
  const move = (to: number | 'first' | 'last') => {
    if (position.go(to)) {
      setStatus(''); // "This is the last image." no longer holds once the person moved
      return;
    }
    say(to === -1 || to === 'first' ? 'This is the first image.' : 'This is the last image.');
  };
  const handlers = {
    copyPrompt: item.kind === 'result' ? () => void copy(settings?.prompt ?? item.alt, 'Prompt') : undefined,
    copyLink: () => {
      if (item.url) void copy(new URL(item.url, window.location.href).href, 'Link');
    },
    reuse:
      item.kind === 'result' && (settings || item.workId)
        ? async () => {
            const full = settings?.refs || !item.workId ? settings : await workSettings(item.workId);
            const chosen = full ?? settings;
            if (!chosen) return say("This work's settings could not be read.");
            onClose();
            reuseSettings(chosen);
          }
        : undefined,
    useAsReference: item.url
      ? () => {
          onClose();
          addAsReference(item);
        }
      : undefined,
    remove:
      onDelete && (item.workId || item.kind === 'upload')
        ? () => {
            setDeleteState({ busy: false });
            setConfirming(item);
          }
        : undefined,
  };

  /** ← and →: the next image, or in compare mode the next one in the last pane. */
  const step = (delta: 1 | -1) => {
    if (!compare.active) return move(delta);
    if (!compare.move(delta)) say('No other image that way.');
  };
  const toggleCompare = () => {
    if (compare.active) compare.stop();
    else if (!compare.start(item.key)) say('Compare takes two images.');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    // Nested dialogs (the confirmation, the list) and modified keys (Ctrl+C…) keep their own meaning.
    if (shortcuts || confirming || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
    const pan = (left: number, top: number) => stage.current?.scrollBy({ left, top });
    const keys: Record<string, (() => void) | undefined> = {
      ArrowLeft: zoomed && !compare.active ? () => pan(-PAN_STEP_PX, 0) : () => step(-1),
      ArrowRight: zoomed && !compare.active ? () => pan(PAN_STEP_PX, 0) : () => step(1),
      k: toggleCompare,
      ArrowUp: zoomed ? () => pan(0, -PAN_STEP_PX) : undefined,
      ArrowDown: zoomed ? () => pan(0, PAN_STEP_PX) : undefined,
      Home: () => move('first'),
      End: () => move('last'),
      z: () => item.url && setZoomed(!zoomed),
      i: () => setShowDetails(!showDetails),
      d: () => download.current?.click(),
      // The star in the actions slot: every work can be starred (Create, Saved works, the Library).
      s: () => dialog.current?.querySelector<HTMLButtonElement>('.star-button')?.click(),
      c: handlers.copyPrompt,
      l: handlers.copyLink,
      r: handlers.reuse,
      e: handlers.useAsReference,
      u: handlers.useAsReference,
      Delete: handlers.remove,
      Backspace: handlers.remove,
      '?': () => setShortcuts(true),
    };
    const action = keys[event.key.length === 1 ? event.key.toLowerCase() : event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };

  const confirmDelete = async () => {
    if (!confirming || !onDelete) return;
    setDeleteState({ busy: true });
    try {
      await onDelete(confirming);
      setConfirming(undefined);
      say(confirming.kind === 'upload' ? 'Upload deleted' : 'Work deleted');
    } catch (failure) {
      setDeleteState({ busy: false, error: failure instanceof Error ? failure.message : String(failure) });
    }
  };

  const count = total ?? items.length;
  const nextDisabled = position.atEnd && !(hasMore && loadMore);
  return (
    <dialog
      ref={dialog}
      className="lightbox"
      aria-modal="true"
      aria-labelledby={ids.title}
      aria-describedby={ids.counter}
      onKeyDown={onKeyDown}
      onCancel={(event) => {
        // React passes a nested dialog's cancel (Esc in the list of shortcuts) up its tree: not ours.
        if (event.target !== dialog.current) return;
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === dialog.current) onClose();
      }}
    >
      <header className="lightbox-bar">
        <p className="lightbox-counter" id={ids.counter}>
          <span aria-hidden="true" data-testid="lightbox-counter">
            {index + 1} / {count}
            {hasMore && total === undefined ? '+' : ''}
          </span>
          <span className="visually-hidden">
            Image {index + 1} of {count}
            {hasMore ? ', more load at the end' : ''}
          </span>
          {position.loadingMore && <span className="muted"> · Loading more…</span>}
        </p>
        <h2 className="lightbox-title" id={ids.title}>
          {shortText(item.caption ?? item.alt)}
        </h2>
        <div className="lightbox-tools">
          <button
            type="button"
            className="button small"
            onClick={() => setZoomed(!zoomed)}
            aria-pressed={zoomed}
            aria-keyshortcuts="Z"
            disabled={!item.url}
          >
            {zoomed ? 'Fit' : '100 %'}
          </button>
          <button
            type="button"
            className="button small"
            onClick={toggleCompare}
            aria-pressed={compare.active}
            aria-keyshortcuts="K"
            disabled={!item.url}
          >
            Compare
          </button>
          <button
            type="button"
            className="button small"
            onClick={() => setShowDetails(!showDetails)}
            aria-expanded={showDetails}
            aria-controls={ids.details}
            aria-keyshortcuts="I"
          >
            Details
          </button>
          <button
            type="button"
            className="icon-button"
            onClick={() => setShortcuts(true)}
            aria-label="Keyboard shortcuts"
            aria-keyshortcuts="?"
            title="Keyboard shortcuts (?)"
          >
            ?
          </button>
          <button
            type="button"
            className="icon-button"
            onClick={onClose}
            aria-label="Close"
            title="Close (Esc)"
          >
            <CloseIcon />
          </button>
        </div>
      </header>
      <div className={showDetails ? 'lightbox-main' : 'lightbox-main no-details'}>
        <div className="lightbox-view">
          {compare.active ? (
            <CompareView compare={compare} />
          ) : (
            <LightboxStage
              item={item}
              stage={stage}
              zoomed={zoomed}
              onZoom={setZoomed}
              onSwipe={(direction) => move(direction)}
            />
          )}
          <button
            type="button"
            className="lightbox-nav previous"
            onClick={() => step(-1)}
            aria-label="Previous image"
            aria-disabled={position.atStart}
          >
            ‹
          </button>
          <button
            type="button"
            className="lightbox-nav next"
            onClick={() => step(1)}
            aria-label="Next image"
            data-autofocus
            aria-disabled={nextDisabled}
          >
            ›
          </button>
        </div>
        <div className="lightbox-side">
          <LightboxActions
            item={item}
            handlers={handlers}
            download={download}
            extra={
              actions ? (
                actions(item)
              ) : item.workId ? (
                <WorkStar key={item.workId} workId={item.workId} />
              ) : null
            }
          />
          <p className="lightbox-status" aria-live="polite">
            {status}
          </p>
          {showDetails && (
            <div id={ids.details}>
              <LightboxDetails item={item} settings={settings} pending={!known} />
            </div>
          )}
        </div>
      </div>
      {shortcuts && <ShortcutsDialog onClose={() => setShortcuts(false)} />}
      {confirming && (
        <DeleteConfirm
          item={confirming}
          state={deleteState}
          onConfirm={confirmDelete}
          onCancel={() => setConfirming(undefined)}
        />
      )}
    </dialog>
  );
}
