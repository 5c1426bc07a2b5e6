import { useCallback, useState } from 'react';
import { messageOf } from './api';

/** Where an action stands: running, failed with a message to show, or done with a confirmation. */
export interface ActionState {
  busy: boolean;
  error?: string;
  done?: string;
}

/**
 * The busy / error / done state of something a person starts (a save, a rotation, a load): `run`
 * marks it busy, then records the confirmation the action returns (a string) or the message of
 * what it threw.
 * Resolves true when the action succeeded.
 */
export function useAction() {
  const [state, setState] = useState<ActionState>({ busy: false });

  const run = useCallback(async (action: () => Promise<unknown>): Promise<boolean> => {
    setState({ busy: true });
    try {
      const done = await action();
      setState(typeof done === 'string' ? { busy: false, done } : { busy: false });
      return true;
    } catch (failure) {
      setState({ busy: false, error: messageOf(failure) });
      return false;
    }
  }, []);
  /** Shows a problem found before anything was sent (an empty field). */
  const fail = useCallback((error: string) => setState({ busy: false, error }), []);
  /** Forgets the last outcome (the person changed what the action is about). */
  const reset = useCallback(() => setState({ busy: false }), []);

  return { ...state, run, fail, reset };
}
