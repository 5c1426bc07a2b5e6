/**
 * The states an audit event records before and after a change, one shape per kind of target, the
 * same whether the admin API or the CLI made the change. None holds a secret: a key is named by its
 * hint, an upstream key by its provider and name.
 */

/** An account as the log records it (a directory entry of the accounts capability). */
export function accountState(entry: {
  email: string;
  tier: string;
  disabled: boolean;
  operator: boolean;
  passwordChangeRequired: boolean;
}) {
  return {
    email: entry.email,
    tier: entry.tier,
    disabled: entry.disabled,
    operator: entry.operator,
    password_change_required: entry.passwordChangeRequired,
  };
}

/** An API key (its hint, never the key). */
export function apiKeyState(key: {
  id: string;
  name: string;
  scope: string;
  hint: string;
  expiresAt: number | null;
  revokedAt: number | null;
}) {
  return {
    id: key.id,
    name: key.name,
    scope: key.scope,
    hint: key.hint,
    expires_at: key.expiresAt,
    revoked_at: key.revokedAt,
  };
}

/** A key's retention settings (audited as key.retention.set). */
export const keyRetentionState = (key: { resultsRetentionDays: number | null; zeroRetention: boolean }) => ({
  retention_results_days: key.resultsRetentionDays,
  zero_retention: key.zeroRetention,
});

/** An account's or a key's spend budgets (micro-dollars; null: none). */
export const budgetState = (budget: { dailyMicros: number | null; monthlyMicros: number | null }) => ({
  daily_micros: budget.dailyMicros,
  monthly_micros: budget.monthlyMicros,
});

/** A key of an upstream pool (its settings and status, never the key). */
export function providerKeyState(key: {
  provider: string;
  name: string;
  source: string;
  project: string | null;
  weight: number;
  maxInFlight: number | null;
  enabled: boolean;
  status: string;
}) {
  return {
    provider: key.provider,
    name: key.name,
    source: key.source,
    project: key.project,
    weight: key.weight,
    max_in_flight: key.maxInFlight,
    enabled: key.enabled,
    status: key.status,
  };
}

/** A version of the tier policy document, whole (`tier` omitted) or one tier's policy (null: none). */
export function tierPolicyState(
  version: { version: number; source: string; tiers: Record<string, object | undefined> },
  tier?: string,
) {
  const head = { version: version.version, source: version.source };
  if (tier === undefined) return { ...head, tiers: version.tiers };
  return { ...head, tier, policy: version.tiers[tier] ?? null };
}
