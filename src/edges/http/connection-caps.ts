import { RateLimited } from '../../base/domain/errors.js';

/** How long a caller refused for too many open streams is asked to wait. */
export const CONNECTION_CAP_RETRY_AFTER_MS = 5000;

/**
 * Open event streams and long-polls on this node, per account and per client address. Each holds
 * a socket, a feed subscription and timers for minutes: without a cap, one account opening ~20,000
 * made every other connection fail (`/healthz` included). A place is taken before a stream starts
 * or a long-poll waits, and given back when it ends; past either cap the request is refused with
 * RateLimited (429, Retry-After). Counted per node: behind a balancer over n nodes an account may
 * hold up to n times the cap (docs/operations.md#resource-limits).
 */
export function createConnectionCaps({ perAccount, perAddress }: { perAccount: number; perAddress: number }) {
  const byAccount = new Map<string, number>();
  const byAddress = new Map<string, number>();
  const move = (counts: Map<string, number>, key: string, delta: number) => {
    const next = (counts.get(key) ?? 0) + delta;
    if (next <= 0) counts.delete(key);
    else counts.set(key, next);
  };
  return {
    /**
     * Takes a place for one stream or long-poll of `accountId` from `address`; answers the function
     * that gives it back (calling it again does nothing). Throws RateLimited past a cap.
     */
    open(accountId: string, address: string): () => void {
      if ((byAccount.get(accountId) ?? 0) >= perAccount) {
        throw new RateLimited(
          `Too many open event streams and long-polls for this account (at most ${perAccount}); close some or retry later`,
          CONNECTION_CAP_RETRY_AFTER_MS,
        );
      }
      if ((byAddress.get(address) ?? 0) >= perAddress) {
        throw new RateLimited(
          `Too many open event streams and long-polls from this address (at most ${perAddress}); close some or retry later`,
          CONNECTION_CAP_RETRY_AFTER_MS,
        );
      }
      move(byAccount, accountId, 1);
      move(byAddress, address, 1);
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        move(byAccount, accountId, -1);
        move(byAddress, address, -1);
      };
    },
    /** Places held now by an account (tests, metrics). */
    openFor: (accountId: string) => byAccount.get(accountId) ?? 0,
  };
}

export type ConnectionCaps = ReturnType<typeof createConnectionCaps>;
