import { useCallback, useEffect, useRef, useState } from 'react';

/** True when a key press belongs to a text field (Ctrl+A there selects its text, not cards). */
function inTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return (
    target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit'].includes(target.type)
  );
}

/**
 * Select many (issue 30): the selected ids of a list, in the list's order. A click toggles one; with
 * Shift (held on the mouse or the keyboard) it sets the range from the last one toggled to this one to
 * the state this one takes. Ctrl/⌘+A selects every loaded item and Esc clears, unless focus is in a
 * text field or a dialog is open (the dialog has them).
 */
export function useSelection(ids: string[]) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const anchor = useRef<string | undefined>(undefined);
  const shiftHeld = useRef(false);
  const order = useRef(ids);
  order.current = ids;

  // Items that left the list (deleted, filtered out) leave the selection.
  useEffect(() => {
    setSelected((current) => {
      const known = new Set(ids);
      const kept = [...current].filter((id) => known.has(id));
      return kept.length === current.size ? current : new Set(kept);
    });
  }, [ids]);

  const toggle = useCallback((id: string, shift: boolean) => {
    setSelected((current) => {
      const next = new Set(current);
      const on = !current.has(id);
      const from = anchor.current === undefined ? -1 : order.current.indexOf(anchor.current);
      const to = order.current.indexOf(id);
      if ((shift || shiftHeld.current) && from >= 0 && to >= 0) {
        const [a, b] = from < to ? [from, to] : [to, from];
        for (const each of order.current.slice(a, b + 1)) {
          if (on) next.add(each);
          else next.delete(each);
        }
      } else if (on) next.add(id);
      else next.delete(id);
      anchor.current = id;
      return next;
    });
  }, []);

  const clear = useCallback(() => {
    anchor.current = undefined;
    setSelected(new Set());
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      shiftHeld.current = event.shiftKey;
      if (event.type !== 'keydown' || inTextField(event.target)) return;
      if (document.querySelector('dialog[open]')) return;
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'a') {
        if (order.current.length === 0) return;
        event.preventDefault();
        setSelected(new Set(order.current));
      } else if (event.key === 'Escape' && !event.defaultPrevented) {
        setSelected((current) => (current.size === 0 ? current : new Set()));
      }
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('keyup', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('keyup', onKey);
    };
  }, []);

  return { selected, toggle, clear, selectAll: () => setSelected(new Set(order.current)) };
}

export type Selection = ReturnType<typeof useSelection>;

/** At most this many works side by side (four still leave each a quarter of a wide screen). */
export const MAX_COMPARED = 4;
