/**
 * The engine's side of the stored key pools: the rows its key choice reads, and what an upstream's
 * answer writes on a key (taken out, a re-check claimed or passed, an error noted). The operator's
 * management of the keys is in provider-keys.ts, on top of these.
 */
import type { Clock } from '../../base/runtime/clock.js';
import { type SecretBox, sealContext } from '../../base/secrets/secret-box.js';
import type { Db } from '../../infra/store/database.js';
import type { KeyOutReason, ProviderKeysTable } from '../../infra/store/schema/provider-keys.js';

/** Security: a seal copied into another key's row does not open there. */
export const keyContext = (id: string, provider: string) => sealContext('provider_keys', id, provider);

/** What the key store is built on. */
export interface ProviderKeyStoreDeps {
  db: Db;
  secrets: SecretBox;
  clock: Clock;
}

/** A key taken out: its reason and the upstream's message, its re-checks and when the next is due. */
export interface KeyTakeOut {
  reason: KeyOutReason;
  message: string;
  rechecks: number;
  recheckAt: number;
  now: number;
}

/** The rows of the key pools as the engine reads and marks them. */
export class ProviderKeyRows {
  // Moves at each write made through this store: what a reader kept from before is stale.
  private writes = 0;

  constructor(protected readonly deps: ProviderKeyStoreDeps) {}

  /** The count of writes made through this store so far (a reader's cache is stale once it moved). */
  version(): number {
    return this.writes;
  }

  /** The rows of a provider's pool (the key choice reads them before each submit). */
  rowsOf(provider: string) {
    return this.deps.db
      .selectFrom('provider_keys')
      .selectAll()
      .where('provider', '=', provider)
      .orderBy('name')
      .execute();
  }

  byId(id: string) {
    return this.deps.db.selectFrom('provider_keys').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Takes a key out of service with its reason, until `recheckAt` (or the operator's word). */
  async takeOut(
    id: string,
    out: KeyTakeOut,
    /** Only a key in service (false: a failed re-check of a key already out). */
    inService: boolean,
  ): Promise<boolean> {
    let update = this.deps.db
      .updateTable('provider_keys')
      .set((eb) => ({
        out_reason: out.reason,
        out_since: eb.fn.coalesce('out_since', eb.val(out.now)),
        recheck_at: out.recheckAt,
        rechecks: out.rechecks,
        last_error: out.message.slice(0, 1000),
        last_error_at: out.now,
        refusals: eb('refusals', '+', 1),
        updated_at: out.now,
      }))
      .where('id', '=', id);
    if (inService) update = update.where('out_reason', 'is', null);
    const changed = Number((await update.executeTakeFirst()).numUpdatedRows) === 1;
    this.wrote();
    return changed;
  }

  /** Claims a due re-check (its time moves to `until`): true for the one caller that won it. */
  async claimRecheck(id: string, dueAt: number, until: number): Promise<boolean> {
    const result = await this.deps.db
      .updateTable('provider_keys')
      .set({ recheck_at: until })
      .where('id', '=', id)
      .where('recheck_at', '=', dueAt)
      .where('out_reason', 'is not', null)
      .executeTakeFirst();
    this.wrote();
    return Number(result.numUpdatedRows) === 1;
  }

  /** A re-check passed: the key serves again (unless the operator disabled it meanwhile). */
  async putBack(id: string, now: number): Promise<void> {
    await this.deps.db
      .updateTable('provider_keys')
      .set({ out_reason: null, out_since: null, recheck_at: null, rechecks: 0, updated_at: now })
      .where('id', '=', id)
      .execute();
    this.wrote();
  }

  /** Records an upstream error on a key (and counts it as a refusal when it was a rate limit). */
  async noteError(id: string, message: string, now: number, refusal: boolean): Promise<void> {
    await this.deps.db
      .updateTable('provider_keys')
      .set((eb) => ({
        last_error: message.slice(0, 1000),
        last_error_at: now,
        ...(refusal ? { refusals: eb('refusals', '+', 1) } : {}),
      }))
      .where('id', '=', id)
      .execute();
    this.wrote();
  }

  /** Opens a stored key's seal (undefined when it does not open: copied from another row, tampered). */
  open(row: ProviderKeysTable): string | undefined {
    if (row.ciphertext === null) return undefined;
    try {
      return this.deps.secrets.open(row.ciphertext, keyContext(row.id, row.provider));
    } catch {
      return undefined;
    }
  }

  /** Marks a write made through this store. */
  protected wrote(): void {
    this.writes++;
  }
}
