import { type RefObject, useEffect, useRef, useState } from 'react';
import { requestReveal } from '../../ui/grid/reveal';
import type { LightboxActionHandlers } from './actions';
import { addAsReference, reuseSettings, workSettings } from './item-actions';
import type { LightboxItem, WorkSettings } from './lightbox-items';

/**
 * Opens the dialog and, on close, gives focus back: to the card of the image shown if it is on the
 * page, else to the opener, else to the page's heading. A card outside a virtualised grid's window is
 * revealed (the grid scrolls to it, after the focus above, and focuses it once rendered).
 */
export function useFocusReturn(dialog: RefObject<HTMLDialogElement | null>, item: LightboxItem | undefined) {
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
    // showModal() focuses the first button (zoom); the keyboard's way through starts on Next (or
    // in a field opened with the lightbox: Create's card "Refine").
    const first = element?.querySelector<HTMLElement>('[data-autofocus-first]');
    (first ?? element?.querySelector<HTMLElement>('[data-autofocus]'))?.focus();
    return () => {
      const card = returnTo.current ? document.querySelector<HTMLElement>(returnTo.current) : null;
      const target = card ?? (opener?.isConnected ? opener : document.querySelector<HTMLElement>('h1'));
      if (target && !target.hasAttribute('tabindex') && target.tagName === 'H1') target.tabIndex = -1;
      target?.focus();
      if (!card && returnTo.current) requestReveal({ ids: returnIds.current, selector: returnTo.current });
    };
  }, [dialog]);
}

/**
 * The shown item's settings: the list's own, completed from Saved works when the list does not carry
 * them (a Library result; a Create card's references). `known`: false while they are being read.
 */
export function useItemSettings(item: LightboxItem | undefined) {
  const [fetched, setFetched] = useState<{ workId: string; settings: WorkSettings | null }>();
  const workId = item?.workId ?? null;
  const needsSettings = item !== undefined && item.kind === 'result' && item.settings?.refs === undefined;
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
  const settings = (fetched?.workId === item?.workId ? fetched?.settings : undefined) ?? item?.settings;
  const known = fetched?.workId === item?.workId || !needsSettings;
  return { settings, known };
}

/** The neighbours load ahead, so ← and → show them at once. */
export function usePreloadNeighbours(items: readonly LightboxItem[], index: number) {
  const neighbours = [items[index - 1]?.url, items[index + 1]?.url].join(' ');
  useEffect(() => {
    for (const url of neighbours.split(' ').filter(Boolean)) new Image().src = url;
  }, [neighbours]);
}

/** The polite status line; `say` repeats a message by changing it (a trailing space), so it is read again. */
export function useStatus() {
  const [status, setStatus] = useState('');
  const say = (message: string) => setStatus((previous) => (previous === message ? `${message} ` : message));
  const clear = () => setStatus('');
  return { status, say, clear };
}

/** The delete confirmation: which item it asks about, and how the answer went. */
export function useDeleteConfirm(
  onDelete: ((item: LightboxItem) => Promise<void>) | undefined,
  say: (message: string) => void,
) {
  const [confirming, setConfirming] = useState<LightboxItem>();
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const ask = (item: LightboxItem) => {
    setState({ busy: false });
    setConfirming(item);
  };
  const confirm = async () => {
    if (!confirming || !onDelete) return;
    setState({ busy: true });
    try {
      await onDelete(confirming);
      setConfirming(undefined);
      say(confirming.kind === 'upload' ? 'Upload deleted' : 'Work deleted');
    } catch (failure) {
      setState({ busy: false, error: failure instanceof Error ? failure.message : String(failure) });
    }
  };
  return { confirming, state, ask, confirm, cancel: () => setConfirming(undefined) };
}

/** What the actions do to the item shown (absent where they do not apply to it). */
export function itemHandlers({
  item,
  settings,
  say,
  onClose,
  ask,
  canDelete,
}: {
  item: LightboxItem;
  settings: WorkSettings | undefined;
  say: (message: string) => void;
  onClose: () => void;
  ask: (item: LightboxItem) => void;
  canDelete: boolean;
}): LightboxActionHandlers {
  const copy = async (text: string, what: string) => {
    try {
      await navigator.clipboard.writeText(text);
      say(`${what} copied`);
    } catch {
      say(`Could not copy the ${what.toLowerCase()}`);
    }
  };
  return {
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
    remove: canDelete && (item.workId || item.kind === 'upload') ? () => ask(item) : undefined,
  };
}
