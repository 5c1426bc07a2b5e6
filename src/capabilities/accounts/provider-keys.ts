import { createHash, randomBytes } from 'node:crypto';
import { Conflict, InvalidInput, NotFound } from '../../base/domain/errors.js';
import type { KeyOutReason, ProviderKeysTable } from '../../infra/store/schema/provider-keys.js';
import { keyContext, ProviderKeyRows, type ProviderKeyStoreDeps } from './provider-key-rows.js';

/** The name of the key each node reads from its environment (`ATELIER_<PROVIDER>_API_KEY`). */
export const ENV_KEY_NAME = 'env';

/** What the operator sets on a key (all but the key itself may change later). */
export interface ProviderKeyInput {
  weight?: number | undefined;
  /** Keys of one project share one capacity pool (Gemini's quotas are per project); null: its own. */
  project?: string | null | undefined;
  /** Calls at once on the key's pool; null: learned from refusals (or the catalog's limit). */
  maxInFlight?: number | null | undefined;
}

/** One key as every output shows it: everything but the key (never shown after it is set). */
export interface ProviderKeyView {
  id: string;
  provider: string;
  name: string;
  /** `env`: the environment's key (read by each node); `stored`: sealed in the store. */
  source: 'env' | 'stored';
  project: string | null;
  weight: number;
  maxInFlight: number | null;
  enabled: boolean;
  /** `in_service`, `disabled` (the operator), or why the upstream took it out. */
  status: 'in_service' | 'disabled' | KeyOutReason;
  outSince: number | null;
  /** When the re-check may next let it serve a call (null while in service). */
  recheckAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
  refusals: number;
  /** The key part of its capacity pool's id (a hash: of the key, or of its project). */
  poolKey: string;
  createdAt: number;
  updatedAt: number;
}

/** The first 16 hex digits of a SHA-256 (as capacity pools name their keys). */
const hash16 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** The key part of a pooled key's capacity pool: its project's (shared by its keys) or its own. */
export const poolKeyOf = (row: Pick<ProviderKeysTable, 'provider' | 'project' | 'key_hash'>): string =>
  row.project === null ? row.key_hash : `p-${hash16(`project\n${row.provider}\n${row.project}`)}`;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MAX_WEIGHT = 1000;

function checked(input: ProviderKeyInput): Partial<ProviderKeysTable> {
  const out: Partial<ProviderKeysTable> = {};
  if (input.weight !== undefined) {
    if (!Number.isInteger(input.weight) || input.weight < 1 || input.weight > MAX_WEIGHT)
      throw new InvalidInput(`weight must be a whole number from 1 to ${MAX_WEIGHT}`, 'weight');
    out.weight = input.weight;
  }
  if (input.project !== undefined) {
    const project = input.project?.trim() || null;
    if (project !== null && !NAME.test(project))
      throw new InvalidInput('project must be 1-64 letters, digits, dots, dashes or underscores', 'project');
    out.project = project;
  }
  if (input.maxInFlight !== undefined) {
    if (input.maxInFlight !== null && (!Number.isInteger(input.maxInFlight) || input.maxInFlight < 1))
      throw new InvalidInput('max in flight must be a whole number of at least 1', 'max_in_flight');
    out.max_in_flight = input.maxInFlight;
  }
  return out;
}

function checkedKey(key: string): string {
  const trimmed = key.trim();
  if (trimmed === '') throw new InvalidInput('the key is empty', 'key');
  if (trimmed.length > 4096) throw new InvalidInput('the key is too long', 'key');
  return trimmed;
}

/** A new key's columns past its identity: weight 1, no limit, no project, in service, no history. */
const freshKeyRow = (now: number) => ({
  project: null,
  weight: 1,
  max_in_flight: null,
  enabled: 1,
  out_reason: null,
  out_since: null,
  recheck_at: null,
  rechecks: 0,
  last_error: null,
  last_error_at: null,
  refusals: 0,
  created_at: now,
  updated_at: now,
});

export function viewOf(row: ProviderKeysTable): ProviderKeyView {
  return {
    id: row.id,
    provider: row.provider,
    name: row.name,
    source: row.ciphertext === null ? 'env' : 'stored',
    project: row.project,
    weight: Number(row.weight),
    maxInFlight: row.max_in_flight === null ? null : Number(row.max_in_flight),
    enabled: Number(row.enabled) === 1,
    status: Number(row.enabled) !== 1 ? 'disabled' : (row.out_reason ?? 'in_service'),
    outSince: row.out_since === null ? null : Number(row.out_since),
    recheckAt: row.recheck_at === null ? null : Number(row.recheck_at),
    lastError: row.last_error,
    lastErrorAt: row.last_error_at === null ? null : Number(row.last_error_at),
    refusals: Number(row.refusals),
    poolKey: poolKeyOf(row),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** The operator's word puts a key back in service: enabled, its take-out and re-checks cleared. */
const backInService = { enabled: 1, out_reason: null, out_since: null, recheck_at: null, rechecks: 0 };

/**
 * The deployment's pools of upstream keys, kept in the store (every node on the database shares
 * them): the operator's management (add, list, update, enable, disable, remove) here, and the rows
 * the engine's key choice reads and marks (ProviderKeyRows, provider-key-rows.ts). Keys are sealed
 * under the master key, bound to their row.
 */
export class ProviderKeyStore extends ProviderKeyRows {
  async add(provider: string, name: string, key: string, input: ProviderKeyInput = {}) {
    const { db, secrets, clock } = this.deps;
    if (!NAME.test(name) || name === ENV_KEY_NAME)
      throw new InvalidInput(
        `name must be 1-64 letters, digits, dots, dashes or underscores, and not "${ENV_KEY_NAME}"`,
        'name',
      );
    const secret = checkedKey(key);
    if (await this.find(provider, name)) throw new Conflict(`a ${provider} key named "${name}" exists`);
    const id = `pk_${randomBytes(12).toString('base64url')}`;
    const now = clock.now();
    await db
      .insertInto('provider_keys')
      .values({
        id,
        provider,
        name,
        ciphertext: secrets.seal(secret, keyContext(id, provider)),
        key_hash: hash16(secret),
        ...freshKeyRow(now),
        ...checked(input),
      })
      .execute();
    this.wrote();
    return viewOf(await this.require(provider, name));
  }

  /** Every key (of one provider, or all), by provider and name. */
  async list(provider?: string): Promise<ProviderKeyView[]> {
    let query = this.deps.db.selectFrom('provider_keys').selectAll();
    if (provider) query = query.where('provider', '=', provider);
    const rows = await query.orderBy('provider').orderBy('name').execute();
    return rows.map(viewOf);
  }

  /** Changes a key's weight, project or limit, and (stored keys) its secret: then back in service. */
  async update(provider: string, name: string, input: ProviderKeyInput & { key?: string | undefined }) {
    const row = await this.require(provider, name);
    const set = checked(input);
    if (input.key !== undefined) {
      if (row.ciphertext === null)
        throw new InvalidInput('the env key is set in the environment, not here', 'key');
      const secret = checkedKey(input.key);
      Object.assign(set, backInService, {
        enabled: row.enabled,
        ciphertext: this.deps.secrets.seal(secret, keyContext(row.id, provider)),
        key_hash: hash16(secret),
      });
    }
    return this.change(provider, name, set);
  }

  /** Enabling also puts back a key the upstream took out; disabling keeps its reason for the record. */
  setEnabled(provider: string, name: string, enabled: boolean) {
    return this.change(provider, name, enabled ? backInService : { enabled: 0 });
  }

  async remove(provider: string, name: string): Promise<void> {
    const row = await this.require(provider, name);
    if (row.ciphertext === null)
      throw new InvalidInput(
        `the env key comes back at each start while ATELIER_${provider.toUpperCase()}_API_KEY is set: disable it instead, or unset the variable`,
        'name',
      );
    await this.deps.db.deleteFrom('provider_keys').where('id', '=', row.id).execute();
    this.wrote();
  }

  /**
   * The environment's key of each provider as a key of its pool, named `env` (its secret stays in
   * the environment): its row is made at start, and put back in service when the key changed.
   */
  async syncEnvKeys(keys: Record<string, string | undefined>): Promise<void> {
    const { db, clock } = this.deps;
    for (const [provider, key] of Object.entries(keys)) {
      if (!key) continue;
      const keyHash = hash16(key);
      const now = clock.now();
      await db
        .insertInto('provider_keys')
        .values({
          id: `pk_env_${provider}`,
          provider,
          name: ENV_KEY_NAME,
          ciphertext: null,
          key_hash: keyHash,
          ...freshKeyRow(now),
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      await db
        .updateTable('provider_keys')
        .set({ key_hash: keyHash, out_reason: null, out_since: null, recheck_at: null, rechecks: 0 })
        .where('id', '=', `pk_env_${provider}`)
        .where('key_hash', '!=', keyHash)
        .execute();
    }
    this.wrote();
  }

  private find(provider: string, name: string) {
    return this.deps.db
      .selectFrom('provider_keys')
      .selectAll()
      .where('provider', '=', provider)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  private async require(provider: string, name: string): Promise<ProviderKeysTable> {
    const row = await this.find(provider, name);
    if (!row) throw new NotFound(`no ${provider} key named "${name}"`);
    return row;
  }

  private async change(provider: string, name: string, set: Partial<ProviderKeysTable>) {
    const row = await this.require(provider, name);
    await this.deps.db
      .updateTable('provider_keys')
      .set({ ...set, updated_at: this.deps.clock.now() })
      .where('id', '=', row.id)
      .execute();
    this.wrote();
    return viewOf({ ...(await this.require(provider, name)) });
  }
}

/** The deployment's pools of upstream keys in the store (see ProviderKeyStore). */
export function createProviderKeyStore(deps: ProviderKeyStoreDeps): ProviderKeyStore {
  return new ProviderKeyStore({ db: deps.db, secrets: deps.secrets, clock: deps.clock });
}
