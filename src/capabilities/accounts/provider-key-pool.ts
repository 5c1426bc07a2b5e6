import type { Logger } from 'pino';
import type { Clock } from '../../base/runtime/clock.js';
import type { KeyOutReason, ProviderKeysTable } from '../../infra/store/schema/provider-keys.js';
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

/** What a provider's key pool is built from. */
export interface ProviderKeyPoolDeps {
  store: ProviderKeyStore;
  clock: Clock;
  /** This node's environment keys (`ATELIER_<PROVIDER>_API_KEY`): the secret of each `env` row. */
  deploymentKeys: Record<string, string | undefined>;
  logger: Logger;
  recheck?: RecheckPolicy;
  metrics?: KeyPoolMetrics | undefined;
  /** A key was taken out (by this node's write), and why: the tasks parked on its pool choose again. */
  onTakenOut?:
    | ((key: PooledKey, answer: { reason: KeyOutReason; message: string }) => Promise<void>)
    | undefined;
}

/** Orders keys by weighted round robin: the most owed first (then taken down by the total). */
function byTurn(credits: Map<string, number>, keys: Array<{ key: PooledKey; weight: number }>): PooledKey[] {
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

/** How long a key taken out for `reason` waits for its next re-check, after `rechecks` failed ones. */
const backoffOf = (recheck: RecheckPolicy, reason: KeyOutReason, rechecks: number) =>
  Math.min(
    recheck.maxMs,
    (reason === 'invalid_key' ? recheck.invalidKeyMs : recheck.noQuotaMs) * 2 ** Math.min(rechecks, 20),
  );

/** One node's view of the providers' key pools: rows as last read, opened secrets, turns, limits. */
class KeyPool {
  // Smooth weighted round robin: each key's running credit, per provider (this node's own turns).
  private readonly credits = new Map<string, number>();
  // Opened seals by ciphertext: a key is opened once, not before every call.
  private readonly opened = new Map<string, string>();
  // Each provider's rows, read at most once a second (another node's or the CLI's change is seen
  // within that second; this process's own writes at once): a submit costs no extra query.
  private readonly rowsRead = new Map<
    string,
    { at: number; version: number; rows: Promise<ProviderKeysTable[]> }
  >();
  // `provider/poolKey` → the operator's limit on calls at once of that pool (the smallest of its
  // keys'), as last read: the capacity sweep sizes its call-backs with it.
  readonly poolLimits = new Map<string, number>();
  // provider → the pool keys of its keys in service on this node, as last read: a pool with room
  // calls back the tasks parked on its siblings' pools (another key of the same provider).
  readonly servingPools = new Map<string, string[]>();
  private readonly recheck: RecheckPolicy;

  constructor(private readonly deps: ProviderKeyPoolDeps) {
    this.recheck = deps.recheck ?? DEFAULT_RECHECK;
  }

  /**
   * The keys that may serve a call of `provider` now, in the order to try them: a key whose
   * re-check is due first (this call is its re-check), then the keys in service by weighted turn.
   */
  async candidates(provider: string): Promise<PooledKey[]> {
    const now = this.deps.clock.now();
    const rows = await this.rowsOf(provider);
    this.notePoolLimits(provider, rows);
    const serving: Array<{ key: PooledKey; weight: number }> = [];
    let probe: PooledKey | undefined;
    for (const row of rows) {
      if (Number(row.enabled) !== 1) continue;
      if (row.out_reason === null) {
        const key = this.pooled(row, false);
        if (key) serving.push({ key, weight: Math.max(1, Number(row.weight)) });
      } else if (!probe && row.recheck_at !== null && Number(row.recheck_at) <= now) {
        if (await this.claimRecheck(row, now)) probe = this.pooled(row, true);
      }
    }
    this.servingPools.set(provider, [...new Set(serving.map(({ key }) => key.poolKey))]);
    const ordered = byTurn(this.credits, serving);
    return probe ? [probe, ...ordered] : ordered;
  }

  /** A key of `provider` in service (its first by name), without taking a turn. */
  async anyKey(provider: string): Promise<string | undefined> {
    for (const row of await this.rowsOf(provider)) {
      if (Number(row.enabled) !== 1 || row.out_reason !== null) continue;
      const secret = this.secretOf(row);
      if (secret !== undefined) return secret;
    }
    return undefined;
  }

  /** A key by id, whatever its state. */
  async keyOf(provider: string, id: string): Promise<PooledKey | undefined> {
    const row = (await this.rowsOf(provider)).find((r) => r.id === id) ?? (await this.deps.store.byId(id));
    if (row && !this.poolLimits.has(`${row.provider}/${poolKeyOf(row)}`))
      this.notePoolLimits(row.provider, [row]);
    return row && this.pooled(row, false);
  }

  /** Why no key of `provider` can serve: the reasons of its keys, for the task's message. */
  async whyNone(provider: string): Promise<string> {
    const rows = await this.deps.store.rowsOf(provider);
    if (rows.length === 0) return `No upstream key is configured for provider ${provider}`;
    const states = rows.map(
      (row) =>
        `${row.name}: ${Number(row.enabled) !== 1 ? 'disabled' : (row.out_reason ?? (this.secretOf(row) ? 'in service' : 'not set on this node'))}`,
    );
    return `No upstream key of provider ${provider} is in service (${states.join(', ')})`;
  }

  /** What an answer on `key` taught; true when the key is out of service after it. */
  async learn(key: PooledKey, answer: KeyAnswer): Promise<boolean> {
    const { store, logger } = this.deps;
    const now = this.deps.clock.now();
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
      case 'out':
        return this.takeOut(key, answer, now);
      case 'refused':
        await store.noteError(key.id, answer.message, now, true);
        return false;
      case 'failed':
        await store.noteError(key.id, answer.message, now, false);
        return false;
    }
  }

  /** An answer that takes `key` out of service (an invalid key, a spent quota). */
  private async takeOut(
    key: PooledKey,
    answer: Extract<KeyAnswer, { kind: 'out' }>,
    now: number,
  ): Promise<boolean> {
    const { store, logger, metrics, onTakenOut } = this.deps;
    // The provider's last key in service stays in: taking it out would route nothing elsewhere
    // and turn one answer (a glitch, say) into an hour without the provider. Its calls fail
    // with the upstream's own reason, and the console shows it as the key's last error.
    if (!key.recheck && !(await this.otherKeyServes(key))) {
      await store.noteError(key.id, answer.message, now, false);
      return false;
    }
    // A failed re-check waits twice as long for the next; a key already out (calls that were
    // on their way when it was taken out) only counts the refusal.
    const row = key.recheck ? await store.byId(key.id) : undefined;
    const rechecks = row ? Number(row.rechecks) + 1 : 0;
    const outcome = {
      ...answer,
      rechecks,
      recheckAt: now + backoffOf(this.recheck, answer.reason, rechecks),
      now,
    };
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
    await onTakenOut?.(key, answer);
    return true;
  }

  private rowsOf(provider: string): Promise<ProviderKeysTable[]> {
    const { store } = this.deps;
    const now = this.deps.clock.now();
    const known = this.rowsRead.get(provider);
    if (known && known.version === store.version() && now - known.at < ROWS_FRESH_MS) return known.rows;
    const rows = store.rowsOf(provider);
    this.rowsRead.set(provider, { at: now, version: store.version(), rows });
    rows.catch(() => this.rowsRead.delete(provider));
    return rows;
  }

  private notePoolLimits(provider: string, rows: ProviderKeysTable[]): void {
    const limits = new Map<string, number>();
    for (const row of rows) {
      if (row.max_in_flight === null) continue;
      const id = `${provider}/${poolKeyOf(row)}`;
      limits.set(id, Math.min(limits.get(id) ?? Number.POSITIVE_INFINITY, Number(row.max_in_flight)));
    }
    for (const id of [...this.poolLimits.keys()])
      if (id.startsWith(`${provider}/`)) this.poolLimits.delete(id);
    for (const [id, limit] of limits) this.poolLimits.set(id, limit);
  }

  private secretOf(row: ProviderKeysTable): string | undefined {
    // The env row's secret is this node's environment key (none: the key is not set on this node).
    if (row.ciphertext === null) return this.deps.deploymentKeys[row.provider] || undefined;
    const known = this.opened.get(row.ciphertext);
    if (known !== undefined) return known;
    const secret = this.deps.store.open(row);
    if (secret !== undefined) {
      if (this.opened.size > 1000) this.opened.clear();
      this.opened.set(row.ciphertext, secret);
    }
    return secret;
  }

  private pooled(row: ProviderKeysTable, isRecheck: boolean): PooledKey | undefined {
    const apiKey = this.secretOf(row);
    if (apiKey === undefined) return undefined;
    return {
      id: row.id,
      name: row.name,
      provider: row.provider,
      apiKey,
      poolKey: poolKeyOf(row),
      maxInFlight: this.poolLimits.get(`${row.provider}/${poolKeyOf(row)}`),
      recheck: isRecheck,
    };
  }

  /** Claims a due re-check for this call: one worker of the cluster wins it. */
  private claimRecheck(row: ProviderKeysTable, now: number): Promise<boolean> {
    return this.deps.store.claimRecheck(row.id, Number(row.recheck_at), now + RECHECK_CLAIM_MS);
  }

  /** Whether another key of the provider is in service (read fresh: another node may have taken it out). */
  private async otherKeyServes(key: PooledKey): Promise<boolean> {
    const rows = await this.deps.store.rowsOf(key.provider);
    return rows.some(
      (row) =>
        row.id !== key.id &&
        Number(row.enabled) === 1 &&
        row.out_reason === null &&
        this.secretOf(row) !== undefined,
    );
  }
}

/**
 * The engine's side of the key pools: which keys may serve a provider's next call, in the order to
 * try them (smooth weighted round robin, per node: each key's share of first choices is its weight's
 * share), and what an answer teaches about a key — an invalid key or a spent quota takes it out of
 * service with its reason until the operator puts it back or its re-check (one real call after a
 * backoff, claimed by one worker of the cluster) succeeds. A plain object of calls (they may be
 * handed on alone) over one KeyPool.
 */
export function createProviderKeyPool(deps: ProviderKeyPoolDeps) {
  const pool = new KeyPool(deps);
  return {
    /**
     * The keys that may serve a call of `provider` now, in the order to try them: a key whose
     * re-check is due first (this call is its re-check), then the keys in service by weighted turn.
     * Empty when the provider has no key in service.
     */
    candidates: (provider: string): Promise<PooledKey[]> => pool.candidates(provider),

    /** The operator's limit on calls at once of a pooled key's pool (as last read), if any. */
    limitOf: (provider: string, poolKey: string): number | undefined =>
      pool.poolLimits.get(`${provider}/${poolKey}`),

    /**
     * The pool keys of the provider's other keys in service (as last read on this node), when
     * `poolKey` is one of them; none for any other key (an account's own).
     */
    siblingsOf(provider: string, poolKey: string): string[] {
      const serving = pool.servingPools.get(provider) ?? [];
      return serving.includes(poolKey) ? serving.filter((key) => key !== poolKey) : [];
    },

    /** A key of `provider` in service (its first by name), without taking a turn: has_key, generate. */
    anyKey: (provider: string): Promise<string | undefined> => pool.anyKey(provider),

    /** A key by id, whatever its state (an accepted job's polls go on with the key that made it). */
    keyOf: (provider: string, id: string): Promise<PooledKey | undefined> => pool.keyOf(provider, id),

    /** Why no key of `provider` can serve: the reasons of its keys, for the task's message. */
    whyNone: (provider: string): Promise<string> => pool.whyNone(provider),

    /**
     * What an answer on `key` taught: taken out, a refusal or another error counted, or back in
     * service. True when the key is out of service after it (the call goes again on another key).
     */
    learn: (key: PooledKey, answer: KeyAnswer): Promise<boolean> => pool.learn(key, answer),
  };
}

export type ProviderKeyPool = ReturnType<typeof createProviderKeyPool>;
