import type { Logger } from 'pino';
import type { Clock } from '../../base/runtime/clock.js';
import type { KeyOutReason, ProviderKeysTable } from '../../infra/store/schema.js';
import { type ProviderKeyStore, poolKeyOf } from './provider-keys.js';

/** A key of a provider's pool, opened, as the engine uses it for one call. */
export interface PooledKey {
  id: string;
  name: string;
  provider: string;
  apiKey: string;
  /** The key part of its capacity pool (its own hash, or its project's). */
  poolKey: string;
  /** The operator's limit on calls at once on its pool, if set. */
  maxInFlight: number | undefined;
  /** True when this call is the key's re-check after it was taken out: a success puts it back. */
  recheck: boolean;
}

/**
 * When a key the upstream took out is tried again (one real call, as the re-check): after `firstMs`
 * for its reason, doubling at each failed re-check, at most `maxMs`.
 */
export interface RecheckPolicy {
  invalidKeyMs: number;
  noQuotaMs: number;
  maxMs: number;
}

export const DEFAULT_RECHECK: RecheckPolicy = {
  invalidKeyMs: 60 * 60_000,
  noQuotaMs: 15 * 60_000,
  maxMs: 24 * 60 * 60_000,
};

/** How long a provider's key rows are used before they are read again. */
const ROWS_FRESH_MS = 1000;

/** How long a claimed re-check is the claimer's before another call may make it (its call's time). */
const RECHECK_CLAIM_MS = 5 * 60_000;

/** What the engine learned of a pooled key from one upstream answer. */
export type KeyAnswer =
  | { kind: 'ok' }
  | { kind: 'out'; reason: KeyOutReason; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'failed'; message: string };

export interface KeyPoolMetrics {
  takenOut: { inc(labels: { provider: string; key_name: string; reason: string }): void };
}

/**
 * The engine's side of the key pools: which keys may serve a provider's next call, in the order to
 * try them (smooth weighted round robin, per node: each key's share of first choices is its weight's
 * share), and what an answer teaches about a key — an invalid key or a spent quota takes it out of
 * service with its reason until the operator puts it back or its re-check (one real call after a
 * backoff, claimed by one worker of the cluster) succeeds.
 */
export function createProviderKeyPool({
  store,
  clock,
  deploymentKeys,
  logger,
  recheck = DEFAULT_RECHECK,
  metrics,
  onTakenOut,
}: {
  store: ProviderKeyStore;
  clock: Clock;
  /** This node's environment keys (`ATELIER_<PROVIDER>_API_KEY`): the secret of each `env` row. */
  deploymentKeys: Record<string, string | undefined>;
  logger: Logger;
  recheck?: RecheckPolicy;
  metrics?: KeyPoolMetrics | undefined;
  /** A key was taken out: the tasks parked on its pool choose again. */
  onTakenOut?: ((key: PooledKey) => Promise<void>) | undefined;
}) {
  // Smooth weighted round robin: each key's running credit, per provider (this node's own turns).
  const credits = new Map<string, number>();
  // Opened seals by ciphertext: a key is opened once, not before every call.
  const opened = new Map<string, string>();
  // Each provider's rows, read at most once a second (another node's or the CLI's change is seen
  // within that second; this process's own writes at once): a submit costs no extra query.
  const rowsRead = new Map<string, { at: number; version: number; rows: Promise<ProviderKeysTable[]> }>();
  function rowsOf(provider: string): Promise<ProviderKeysTable[]> {
    const now = clock.now();
    const known = rowsRead.get(provider);
    if (known && known.version === store.version() && now - known.at < ROWS_FRESH_MS) return known.rows;
    const rows = store.rowsOf(provider);
    rowsRead.set(provider, { at: now, version: store.version(), rows });
    rows.catch(() => rowsRead.delete(provider));
    return rows;
  }
  // `provider/poolKey` → the operator's limit on calls at once of that pool (the smallest of its
  // keys'), as last read: the capacity sweep sizes its call-backs with it.
  const poolLimits = new Map<string, number>();
  // provider → the pool keys of its keys in service on this node, as last read: a pool with room
  // calls back the tasks parked on its siblings' pools (another key of the same provider).
  const servingPools = new Map<string, string[]>();

  function notePoolLimits(provider: string, rows: ProviderKeysTable[]): void {
    const limits = new Map<string, number>();
    for (const row of rows) {
      if (row.max_in_flight === null) continue;
      const id = `${provider}/${poolKeyOf(row)}`;
      limits.set(id, Math.min(limits.get(id) ?? Number.POSITIVE_INFINITY, Number(row.max_in_flight)));
    }
    for (const id of [...poolLimits.keys()]) if (id.startsWith(`${provider}/`)) poolLimits.delete(id);
    for (const [id, limit] of limits) poolLimits.set(id, limit);
  }

  function secretOf(row: ProviderKeysTable): string | undefined {
    // The env row's secret is this node's environment key (none: the key is not set on this node).
    if (row.ciphertext === null) return deploymentKeys[row.provider] || undefined;
    const known = opened.get(row.ciphertext);
    if (known !== undefined) return known;
    const secret = store.open(row);
    if (secret !== undefined) {
      if (opened.size > 1000) opened.clear();
      opened.set(row.ciphertext, secret);
    }
    return secret;
  }

  function pooled(row: ProviderKeysTable, isRecheck: boolean): PooledKey | undefined {
    const apiKey = secretOf(row);
    if (apiKey === undefined) return undefined;
    return {
      id: row.id,
      name: row.name,
      provider: row.provider,
      apiKey,
      poolKey: poolKeyOf(row),
      maxInFlight: poolLimits.get(`${row.provider}/${poolKeyOf(row)}`),
      recheck: isRecheck,
    };
  }

  /** Claims a due re-check for this call: one worker of the cluster wins it. */
  const claimRecheck = (row: ProviderKeysTable, now: number): Promise<boolean> =>
    store.claimRecheck(row.id, Number(row.recheck_at), now + RECHECK_CLAIM_MS);

  /** Orders keys by weighted round robin: the most owed first (then taken down by the total). */
  function byTurn(keys: Array<{ key: PooledKey; weight: number }>): PooledKey[] {
    const total = keys.reduce((sum, k) => sum + k.weight, 0);
    const owed = keys.map(({ key, weight }) => {
      const credit = (credits.get(key.id) ?? 0) + weight;
      credits.set(key.id, credit);
      return { key, credit };
    });
    owed.sort((a, b) => b.credit - a.credit || (a.key.name < b.key.name ? -1 : 1));
    const first = owed[0];
    if (first) credits.set(first.key.id, first.credit - total);
    return owed.map((o) => o.key);
  }

  /** Whether another key of the provider is in service (read fresh: another node may have taken it out). */
  async function otherKeyServes(key: PooledKey): Promise<boolean> {
    const rows = await store.rowsOf(key.provider);
    return rows.some(
      (row) =>
        row.id !== key.id &&
        Number(row.enabled) === 1 &&
        row.out_reason === null &&
        secretOf(row) !== undefined,
    );
  }

  const backoffOf = (reason: KeyOutReason, rechecks: number) =>
    Math.min(
      recheck.maxMs,
      (reason === 'invalid_key' ? recheck.invalidKeyMs : recheck.noQuotaMs) * 2 ** Math.min(rechecks, 20),
    );

  return {
    /**
     * The keys that may serve a call of `provider` now, in the order to try them: a key whose
     * re-check is due first (this call is its re-check), then the keys in service by weighted turn.
     * Empty when the provider has no key in service.
     */
    async candidates(provider: string): Promise<PooledKey[]> {
      const now = clock.now();
      const rows = await rowsOf(provider);
      notePoolLimits(provider, rows);
      const serving: Array<{ key: PooledKey; weight: number }> = [];
      let probe: PooledKey | undefined;
      for (const row of rows) {
        if (Number(row.enabled) !== 1) continue;
        if (row.out_reason === null) {
          const key = pooled(row, false);
          if (key) serving.push({ key, weight: Math.max(1, Number(row.weight)) });
        } else if (!probe && row.recheck_at !== null && Number(row.recheck_at) <= now) {
          if (await claimRecheck(row, now)) probe = pooled(row, true);
        }
      }
      servingPools.set(provider, [...new Set(serving.map(({ key }) => key.poolKey))]);
      const ordered = byTurn(serving);
      return probe ? [probe, ...ordered] : ordered;
    },

    /** The operator's limit on calls at once of a pooled key's pool (as last read), if any. */
    limitOf: (provider: string, poolKey: string): number | undefined =>
      poolLimits.get(`${provider}/${poolKey}`),

    /**
     * The pool keys of the provider's other keys in service (as last read on this node), when
     * `poolKey` is one of them; none for any other key (an account's own).
     */
    siblingsOf(provider: string, poolKey: string): string[] {
      const serving = servingPools.get(provider) ?? [];
      return serving.includes(poolKey) ? serving.filter((key) => key !== poolKey) : [];
    },

    /** A key of `provider` in service (its first by name), without taking a turn: has_key, generate. */
    async anyKey(provider: string): Promise<string | undefined> {
      for (const row of await rowsOf(provider)) {
        if (Number(row.enabled) !== 1 || row.out_reason !== null) continue;
        const secret = secretOf(row);
        if (secret !== undefined) return secret;
      }
      return undefined;
    },

    /** A key by id, whatever its state (an accepted job's polls go on with the key that made it). */
    async keyOf(provider: string, id: string): Promise<PooledKey | undefined> {
      const row = (await rowsOf(provider)).find((r) => r.id === id) ?? (await store.byId(id));
      if (row && !poolLimits.has(`${row.provider}/${poolKeyOf(row)}`)) notePoolLimits(row.provider, [row]);
      return row && pooled(row, false);
    },

    /** Why no key of `provider` can serve: the reasons of its keys, for the task's message. */
    async whyNone(provider: string): Promise<string> {
      const rows = await store.rowsOf(provider);
      if (rows.length === 0) return `No upstream key is configured for provider ${provider}`;
      const states = rows.map(
        (row) =>
          `${row.name}: ${Number(row.enabled) !== 1 ? 'disabled' : (row.out_reason ?? (secretOf(row) ? 'in service' : 'not set on this node'))}`,
      );
      return `No upstream key of provider ${provider} is in service (${states.join(', ')})`;
    },

    /**
     * What an answer on `key` taught: taken out, a refusal or another error counted, or back in
     * service. True when the key is out of service after it (the call goes again on another key).
     */
    async learn(key: PooledKey, answer: KeyAnswer): Promise<boolean> {
      const now = clock.now();
      switch (answer.kind) {
        case 'ok':
          if (key.recheck) {
            await store.putBack(key.id, now);
            logger.info(
              { provider: key.provider, key: key.name },
              'upstream key back in service (re-check passed)',
            );
          }
          return false;
        case 'out': {
          // The provider's last key in service stays in: taking it out would route nothing elsewhere
          // and turn one answer (a glitch, say) into an hour without the provider. Its calls fail
          // with the upstream's own reason, and the console shows it as the key's last error.
          if (!key.recheck && !(await otherKeyServes(key))) {
            await store.noteError(key.id, answer.message, now, false);
            return false;
          }
          // A failed re-check waits twice as long for the next; a key already out (calls that were
          // on their way when it was taken out) only counts the refusal.
          const row = key.recheck ? await store.byId(key.id) : undefined;
          const rechecks = row ? Number(row.rechecks) + 1 : 0;
          const outcome = { ...answer, rechecks, recheckAt: now + backoffOf(answer.reason, rechecks), now };
          if (!(await store.takeOut(key.id, outcome, !key.recheck))) {
            await store.noteError(key.id, answer.message, now, true);
            return true;
          }
          const log = { provider: key.provider, key: key.name, reason: answer.reason, error: answer.message };
          if (key.recheck) {
            logger.info({ ...log, recheckAt: outcome.recheckAt }, 'upstream key re-check failed; still out');
            return true;
          }
          metrics?.takenOut.inc({ provider: key.provider, key_name: key.name, reason: answer.reason });
          logger.warn({ ...log, recheckAt: outcome.recheckAt }, 'upstream key taken out of service');
          await onTakenOut?.(key);
          return true;
        }
        case 'refused':
          await store.noteError(key.id, answer.message, now, true);
          return false;
        case 'failed':
          await store.noteError(key.id, answer.message, now, false);
          return false;
      }
    },
  };
}

export type ProviderKeyPool = ReturnType<typeof createProviderKeyPool>;
