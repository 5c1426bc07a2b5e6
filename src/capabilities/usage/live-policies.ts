import { Conflict, InvalidInput } from '../../base/domain/errors.js';
import { TIERS, type Tier } from '../../base/domain/tiers.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import { watchVersions } from '../../infra/store/versioned-documents.js';
import {
  createPolicyVersions,
  type PolicySource,
  type PolicyVersion,
  type PolicyVersions,
  versionOf,
} from './policy-versions.js';
import { type PolicyFile, parseTierPolicies, type TierPolicies } from './tier-policies.js';

/** Who makes an edit: the operator's e-mail, and whether through the admin API or the console. */
export interface PolicyAuthor {
  label: string;
  source: Exclude<PolicySource, 'file'>;
}

/** What a write did: the version in force before it (none on a first start) and the one written. */
export interface PolicyChange {
  before: PolicyVersion | undefined;
  after: PolicyVersion;
}

/** A tier's limits as an edit sends them: a value sets the field, null removes it, absent leaves it. */
export type TierPolicyPatch = Record<string, unknown>;

/** What a node holds before it has read the store: no policies. */
const NONE: PolicyVersion = {
  version: 0,
  tiers: {},
  source: 'file',
  fileSha256: null,
  createdAt: 0,
  createdBy: '',
};

/** Attempts at writing the next version when other nodes keep writing it first. */
const WRITE_ATTEMPTS = 20;

/** The tiers in the order of the tier list (what the store keeps, whatever order they came in). */
const inTierOrder = (tiers: TierPolicies): TierPolicies =>
  Object.fromEntries(TIERS.flatMap((tier) => (tiers[tier] ? [[tier, tiers[tier]]] : [])));

const stale = (inForce: number, expected: number) =>
  new Conflict(
    `The tier policies are at version ${inForce}, not ${expected}: someone changed them since; reload them and edit again`,
  );

/** What the writes below share: the store's versions, this node's adoption, the loader's validation. */
interface Writer {
  versions: PolicyVersions;
  /** Writes the next version after `on`; undefined when another writer took its number first. */
  write(
    next: Omit<PolicyVersion, 'version' | 'createdAt'>,
    on: PolicyVersion | undefined,
  ): Promise<PolicyVersion | undefined>;
  adopt(version: PolicyVersion): void;
  /** The loader's validation, its refusal as 400 invalid_request with the loader's message. */
  validate(document: unknown): TierPolicies;
}

/**
 * At a start: seeds version 1 from the file (or from no policies) when the store has none, and
 * imports the file as a new version when its SHA-256 differs from the last version a start wrote
 * from a file. An unchanged file, or none, leaves the store as it is (edits made since stand).
 * Returns the version written, if any. Nodes starting at once write each version once.
 */
async function seed(w: Writer, file: PolicyFile | undefined, by: string): Promise<PolicyChange | undefined> {
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
    const latest = await w.versions.latest();
    const imported = latest && (!file || (await w.versions.latestFromFile())?.fileSha256 === file.sha256);
    if (latest && imported) {
      w.adopt(latest);
      return undefined;
    }
    const next = { tiers: inTierOrder(file?.policies ?? {}), source: 'file' as const };
    const after = await w.write({ ...next, fileSha256: file?.sha256 ?? null, createdBy: by }, latest);
    if (after) return { before: latest, after };
  }
  throw new Error('Could not record the tier policies: other nodes kept writing them at once');
}

/** Replaces the whole document, if `expectedVersion` is still in force (else 409 conflict). */
async function replace(w: Writer, document: unknown, expectedVersion: number, author: PolicyAuthor) {
  const valid = w.validate(document);
  const before = await w.versions.latest();
  if ((before?.version ?? 0) !== expectedVersion) throw stale(before?.version ?? 0, expectedVersion);
  const edit = { tiers: valid, source: author.source, fileSha256: null, createdBy: author.label };
  const after = await w.write(edit, before);
  if (!after) throw stale(expectedVersion + 1, expectedVersion);
  return { before, after } satisfies PolicyChange;
}

/** The document with `tier`'s policy patched (a value sets, null removes, absent leaves). */
function patched(tiers: TierPolicies | undefined, tier: Tier, patch: TierPolicyPatch) {
  const policy: Record<string, unknown> = { ...tiers?.[tier] };
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) delete policy[field];
    else if (value !== undefined) policy[field] = value;
  }
  const raw: Record<string, unknown> = { ...tiers, [tier]: policy };
  if (Object.keys(policy).length === 0) delete raw[tier];
  return { tiers: raw };
}

/** Changes one tier's limits; with `expectedVersion`, only if it is still in force. */
async function setTier(
  w: Writer,
  edit: { tier: Tier; patch: TierPolicyPatch; expectedVersion: number | undefined },
  author: PolicyAuthor,
): Promise<PolicyChange> {
  const { expectedVersion } = edit;
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
    const before = await w.versions.latest();
    const at = before?.version ?? 0;
    if (expectedVersion !== undefined && at !== expectedVersion) throw stale(at, expectedVersion);
    const tiers = w.validate(patched(before?.tiers, edit.tier, edit.patch));
    const after = await w.write(
      { tiers, source: author.source, fileSha256: null, createdBy: author.label },
      before,
    );
    if (after) return { before, after };
    if (expectedVersion !== undefined) throw stale(at + 1, expectedVersion);
  }
  throw new Conflict('The tier policies kept changing under this edit; try again');
}

/**
 * The tier policies in force on this node, from the store's versions (`policy_versions`): the
 * highest version is in force on every node. Each node re-reads it every few seconds and swaps its
 * policies whole (one reference: an admission reads one version, never half of two); a change made
 * on this node is in force here at once. Edits are validated as ATELIER_POLICY_FILE is, against the
 * catalog's model ids, and written as the next version only if it is still free (compare-and-swap).
 */
export function createLivePolicies(deps: { db: Db; clock: Clock; modelIds: () => readonly string[] }) {
  const versions = createPolicyVersions(deps.db);
  let inForce = NONE;
  const listeners = new Set<(version: PolicyVersion) => void>();
  let watch: ReturnType<typeof watchVersions> | undefined;
  const writer: Writer = {
    versions,
    adopt(version) {
      if (version.version <= inForce.version) return;
      inForce = version;
      for (const listener of listeners) listener(version);
    },
    async write(next, on) {
      const version = { ...next, version: (on?.version ?? 0) + 1, createdAt: deps.clock.now() };
      if (!(await versions.insert(version))) return undefined;
      writer.adopt(version);
      return version;
    },
    validate(document) {
      try {
        return inTierOrder(parseTierPolicies(document, deps.modelIds(), 'The policy document'));
      } catch (error) {
        throw new InvalidInput((error as Error).message, 'tiers');
      }
    },
  };
  async function refresh(): Promise<PolicyVersion> {
    const latest = await versions.latest();
    if (latest) writer.adopt(latest);
    return inForce;
  }

  return {
    /** The version in force on this node. */
    current: (): PolicyVersion => inForce,
    /** The tier policies in force on this node (what admission reads, once per request). */
    policies: (): TierPolicies => inForce.tiers,
    /** Reads the version in force from the store and adopts it if it is newer. */
    refresh,
    /** The newest `limit` versions, newest first. */
    history: (limit: number) => versions.list(limit),
    /** Calls `listener` with each newer version this node adopts; returns the unsubscribe. */
    onChange(listener: (version: PolicyVersion) => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    /**
     * Reads the number of the version in force every `intervalMs` and adopts a newer version (a
     * failed read is reported and tried again next time), as the catalog's versions are watched.
     */
    start(intervalMs: number, onError: (error: unknown) => void): void {
      watch ??= watchVersions({
        documents: versions.documents,
        intervalMs,
        initial: inForce.version,
        apply: (stored) => writer.adopt(versionOf(stored)),
        onError,
      });
    },
    async stop(): Promise<void> {
      await watch?.stop();
      watch = undefined;
    },
    /** At a start: seeds or imports ATELIER_POLICY_FILE (see `seed`). */
    seed: (file: PolicyFile | undefined, by: string) => seed(writer, file, by),
    /** Replaces the whole document (`{ "tiers": … }`, as the file holds it). */
    replace: (document: unknown, expectedVersion: number, author: PolicyAuthor) =>
      replace(writer, document, expectedVersion, author),
    /** Changes one tier's limits: a value sets, null removes, absent leaves; a tier left empty has no policy. */
    setTier: (
      tier: Tier,
      patch: TierPolicyPatch,
      expectedVersion: number | undefined,
      author: PolicyAuthor,
    ) => setTier(writer, { tier, patch, expectedVersion }, author),
  };
}

export type LivePolicies = ReturnType<typeof createLivePolicies>;
