import { useCallback, useEffect, useRef, useState } from 'react';
import { messageOf } from '../../lib/api';

/** How long "Undo" is offered before the deletion is sent. */
export const UNDO_MS = 10_000;

interface Pending {
  ids: string[];
  label: string;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Delete with Undo (issue 30): `schedule` hides the items at once and offers Undo; the server delete
 * (`commit`) happens when the offer expires (UNDO_MS), is dismissed, another deletion is scheduled, or
 * the page goes away (sent with keepalive so it survives the unload). Undo brings the items back as
 * they were: nothing reached the server.
 */
export function useDeferredDelete(
  commit: (ids: string[], options: { keepalive: boolean }) => Promise<void>,
  onCommitted: (ids: string[]) => void,
) {
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const [offer, setOffer] = useState<{ label: string } | undefined>();
  const [error, setError] = useState<string>();
  const pending = useRef<Pending | undefined>(undefined);
  const latest = useRef({ commit, onCommitted });
  latest.current = { commit, onCommitted };

  const send = useCallback(async (keepalive = false) => {
    const batch = pending.current;
    if (!batch) return;
    clearTimeout(batch.timer);
    pending.current = undefined;
    setOffer(undefined);
    try {
      await latest.current.commit(batch.ids, { keepalive });
      latest.current.onCommitted(batch.ids);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setHidden((current) => {
        const next = new Set(current);
        for (const id of batch.ids) next.delete(id);
        return next;
      });
    }
  }, []);

  const schedule = useCallback(
    (ids: string[], label: string) => {
      if (ids.length === 0) return;
      void send();
      setError(undefined);
      setHidden((current) => new Set([...current, ...ids]));
      pending.current = { ids, label, timer: setTimeout(() => void send(), UNDO_MS) };
      setOffer({ label });
    },
    [send],
  );

  const undo = useCallback(() => {
    const batch = pending.current;
    if (!batch) return;
    clearTimeout(batch.timer);
    pending.current = undefined;
    setOffer(undefined);
    setHidden((current) => {
      const next = new Set(current);
      for (const id of batch.ids) next.delete(id);
      return next;
    });
  }, []);

  // Leaving the page (a reload, a closed tab, another route) sends what was scheduled.
  useEffect(() => {
    const leave = () => void send(true);
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      leave();
    };
  }, [send]);

  return { hidden, offer, error, schedule, undo, dismiss: () => void send() };
}

/** A deletion with Undo, as `useDeferredDelete` gives it. */
export type DeferredDelete = ReturnType<typeof useDeferredDelete>;
