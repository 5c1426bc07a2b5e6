import { useCallback, useEffect, useState } from 'react';
import { api } from '../../lib/api';
import { useAction } from '../../lib/use-action';

/**
 * A list of the account's revocable credentials (API keys, signed-in apps): loaded from `path` (its
 * items under `field`), each revoked by `DELETE path/{id}` after the confirmation the caller shows for
 * `revoking`; the list reloads after a revocation.
 */
export function useRevocableList<T extends { id: string }>(path: string, field: string) {
  const [items, setItems] = useState<T[]>();
  const [revoking, setRevoking] = useState<T>();
  const listing = useAction();
  const revocation = useAction();
  const { run } = listing;

  const load = useCallback(
    () =>
      run(async () => {
        setItems((await api.get<Record<string, T[]>>(path))[field]);
      }),
    [run, path, field],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const askToRevoke = (item: T) => {
    revocation.reset();
    setRevoking(item);
  };
  const revoke = async (item: T) => {
    const done = await revocation.run(() => api.delete(`${path}/${encodeURIComponent(item.id)}`));
    if (!done) return;
    setRevoking(undefined);
    await load();
  };
  const cancel = () => setRevoking(undefined);
  /** The confirmation dialog's behaviour for `item` (its title, message and label are the caller's). */
  const confirming = (item: T) => ({
    danger: true,
    busy: revocation.busy,
    error: revocation.error,
    onConfirm: () => void revoke(item),
    onCancel: cancel,
  });

  return { items, load, listing, revoking, askToRevoke, confirming };
}
