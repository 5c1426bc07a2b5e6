import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { TIERS, type Tier } from '../../base/domain/tiers.js';

const limit = z
  .int({ error: 'must be a positive integer' })
  .min(1, 'must be a positive integer')
  .max(1_000_000_000);

/** One tier's policy; every field is optional, an absent one does not restrict. */
const tierPolicySchema = z.strictObject({
  models: z
    .array(z.string().min(1))
    .min(1, 'must list at least one model (leave it out to allow every model)')
    .optional(),
  images_per_day: limit.optional(),
  images_per_month: limit.optional(),
  tasks_in_flight: limit.optional(),
  /** Days a result (a work's images) is kept, and an upload (issue 47): past them, removed (410). */
  retention_results_days: limit.max(36_500).optional(),
  retention_uploads_days: limit.max(36_500).optional(),
});

const policyFileSchema = z.strictObject({
  tiers: z.partialRecord(z.enum(TIERS), tierPolicySchema),
});

export type TierPolicy = z.output<typeof tierPolicySchema>;

/** The policies of the tiers that have one; a tier absent from the file is unrestricted. */
export type TierPolicies = Partial<Record<Tier, TierPolicy>>;

/** One schema problem, said with the path and what is allowed there. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.join('.') || '(root)';
  if (issue.code !== 'unrecognized_keys') return `${where}: ${issue.message}`;
  const names = issue.keys.map((key) => `"${key}"`).join(', ');
  if (where === 'tiers') return `tiers: unknown tier ${names} (tiers: ${TIERS.join(', ')})`;
  const fields = Object.keys(where === '(root)' ? policyFileSchema.shape : tierPolicySchema.shape);
  return `${where}: unknown field ${names} (fields: ${fields.join(', ')})`;
}

/** Model ids the document names that the catalog does not have (read from the raw document, so they are reported with every other problem). */
function unknownModels(input: unknown, modelIds: readonly string[]): string[] {
  const tiers = (input as { tiers?: unknown } | null)?.tiers;
  if (typeof tiers !== 'object' || tiers === null) return [];
  return Object.entries(tiers).flatMap(([tier, policy]) => {
    const models = (policy as { models?: unknown } | null)?.models;
    if (!Array.isArray(models)) return [];
    return models
      .filter((id): id is string => typeof id === 'string' && !modelIds.includes(id))
      .map((id) => `tiers.${tier}.models: unknown model "${id}" (catalog: ${modelIds.join(', ')})`);
  });
}

/**
 * Validates a policy document against the catalog's model ids; throws an Error naming every problem
 * (a typo in a field or a model id must stop the start, not silently allow everything).
 */
export function parseTierPolicies(input: unknown, modelIds: readonly string[], source: string): TierPolicies {
  const parsed = policyFileSchema.safeParse(input);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map(describeIssue)),
    ...unknownModels(input, modelIds),
  ];
  if (!parsed.success || problems.length > 0)
    throw new Error(`${source} is invalid:\n  ${problems.join('\n  ')}`);
  return parsed.data.tiers;
}

/** ATELIER_POLICY_FILE as read at a start: its policies (validated) and the SHA-256 of its bytes. */
export interface PolicyFile {
  path: string;
  policies: TierPolicies;
  sha256: string;
}

/** Reads and validates `ATELIER_POLICY_FILE`; throws an Error naming the file and every problem. */
export function readPolicyFile(path: string, modelIds: readonly string[]): PolicyFile {
  let bytes: Buffer;
  let json: unknown;
  try {
    bytes = readFileSync(path);
    json = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'is not valid JSON' : 'cannot be read';
    throw new Error(`ATELIER_POLICY_FILE: ${path} ${reason}: ${(error as Error).message}`);
  }
  const policies = parseTierPolicies(json, modelIds, `ATELIER_POLICY_FILE (${path})`);
  return { path, policies, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Loads `ATELIER_POLICY_FILE`; no path means no policies (the spec's default: no server-side limits). */
export function loadTierPolicies(path: string | undefined, modelIds: readonly string[]): TierPolicies {
  return path ? readPolicyFile(path, modelIds).policies : {};
}

/**
 * A policy document read back from the store: it was validated in full when it was written, so
 * only its shape is checked here (a model since removed from the catalog does not stop a node; the
 * tier just cannot use it).
 */
export function tierPoliciesOf(document: unknown): TierPolicies {
  return policyFileSchema.parse(document).tiers;
}
