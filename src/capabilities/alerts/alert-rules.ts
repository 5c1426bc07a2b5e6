import {
  ALERT_DEFAULTS,
  type AlertFormat,
  type AlertKind,
  type AlertParams,
  type AlertRuleWire,
  type CreatedAlertWire,
} from '../../base/contract/admin-alerts.js';
import { DomainError, InvalidInput, NotFound } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import { type SecretBox, sealContext } from '../../base/secrets/secret-box.js';
import type { SafeFetcher } from '../../infra/outbound/safe-fetcher.js';
import { generateWebhookSecret } from '../webhooks/index.js';
import type { AlertRuleRow, AlertsStore } from './alerts-store.js';

/** A rule as detection reads it: its row, with its thresholds in force (its own, else the defaults). */
export interface AlertRule {
  id: string;
  kind: AlertKind;
  url: string;
  format: AlertFormat;
  limits: typeof ALERT_DEFAULTS;
}

/** How long this node trusts its list of enabled rules; its own changes drop it at once. */
const RULES_FRESH_MS = 1000;

const secretContext = (ruleId: string) => sealContext('alert_rules', ruleId);

const paramsOf = (row: AlertRuleRow): AlertParams => JSON.parse(row.params_json) as AlertParams;

export function toRuleWire(row: AlertRuleRow): AlertRuleWire {
  return {
    id: row.id,
    kind: row.kind as AlertKind,
    url: row.url,
    format: row.format as AlertFormat,
    params: paramsOf(row),
    enabled: Number(row.enabled) === 1,
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

function toRule(row: AlertRuleRow): AlertRule {
  const params = paramsOf(row);
  return {
    id: row.id,
    kind: row.kind as AlertKind,
    url: row.url,
    format: row.format as AlertFormat,
    limits: {
      thresholds: [...new Set(params.thresholds ?? ALERT_DEFAULTS.thresholds)].sort((a, b) => a - b),
      rate: params.rate ?? ALERT_DEFAULTS.rate,
      min_count: params.min_count ?? ALERT_DEFAULTS.min_count,
      window_seconds: params.window_seconds ?? ALERT_DEFAULTS.window_seconds,
    },
  };
}

export interface AlertRulesDeps {
  store: AlertsStore;
  clock: Clock;
  ids: IdGenerator;
  secrets: SecretBox;
  fetcher: Pick<SafeFetcher, 'vetUrl'>;
}

type RuleInput = {
  kind: AlertKind;
  url: string;
  format?: AlertFormat;
  params?: AlertParams;
  enabled?: boolean;
};
type RulePatch = { url?: string; format?: AlertFormat; params?: AlertParams; enabled?: boolean };

/** Refuses (400 naming url) a URL the outbound policy does not allow, as a callbackUrl is. */
async function vetUrl(fetcher: AlertRulesDeps['fetcher'], url: string): Promise<void> {
  try {
    await fetcher.vetUrl(url, 'url');
  } catch (error) {
    if (error instanceof DomainError) throw new InvalidInput(error.message, 'url');
    throw error;
  }
}

/**
 * The operator's alert rules: created with their own signing secret (sealed at rest, answered
 * once), changed, removed; and the enabled ones of a kind, as detection asks for them.
 */
export function createAlertRules(deps: AlertRulesDeps) {
  const { store, clock } = deps;
  let cached: { at: number; rules: Promise<AlertRule[]> } | undefined;
  const forget = () => {
    cached = undefined;
  };
  const existing = async (id: string) => {
    const row = await store.byId(id);
    if (!row) throw new NotFound('Alert rule not found');
    return row;
  };

  return {
    async create(input: RuleInput): Promise<CreatedAlertWire> {
      await vetUrl(deps.fetcher, input.url);
      const id = deps.ids.next('alr');
      const secret = generateWebhookSecret();
      const now = clock.now();
      const row: AlertRuleRow = {
        id,
        kind: input.kind,
        url: input.url,
        format: input.format ?? 'standard',
        secret_ciphertext: deps.secrets.seal(secret, secretContext(id)),
        params_json: JSON.stringify(input.params ?? {}),
        enabled: input.enabled === false ? 0 : 1,
        created_at: now,
        updated_at: now,
      };
      await store.insertRule(row);
      forget();
      return { ...toRuleWire(row), secret };
    },

    list: async (): Promise<AlertRuleWire[]> => (await store.list()).map(toRuleWire),

    get: async (id: string): Promise<AlertRuleWire> => toRuleWire(await existing(id)),

    /** Changes a rule; answers it as it was and as it became. */
    async update(id: string, patch: RulePatch): Promise<{ before: AlertRuleWire; after: AlertRuleWire }> {
      const before = await existing(id);
      if (patch.url !== undefined) await vetUrl(deps.fetcher, patch.url);
      const change: Partial<AlertRuleRow> = {
        ...(patch.url !== undefined && { url: patch.url }),
        ...(patch.format !== undefined && { format: patch.format }),
        ...(patch.params !== undefined && { params_json: JSON.stringify(patch.params) }),
        ...(patch.enabled !== undefined && { enabled: patch.enabled ? 1 : 0 }),
        updated_at: clock.now(),
      };
      await store.updateRule(id, change);
      forget();
      return { before: toRuleWire(before), after: toRuleWire({ ...before, ...change }) };
    },

    /** Removes a rule with its episodes and deliveries; answers it as it was. */
    async remove(id: string): Promise<AlertRuleWire> {
      const before = await existing(id);
      if (!(await store.deleteRule(id))) throw new NotFound('Alert rule not found');
      forget();
      return toRuleWire(before);
    },

    /** A rule as detection uses it (the test message's too). */
    rule: async (id: string): Promise<AlertRule> => toRule(await existing(id)),

    /** The enabled rules of `kind` (read at most once a second on this node). */
    async enabledOf(kind: AlertKind): Promise<AlertRule[]> {
      const now = clock.now();
      if (!cached || now - cached.at >= RULES_FRESH_MS || now < cached.at) {
        const rules = store.enabled().then((rows) => rows.map(toRule));
        rules.catch(forget);
        cached = { at: now, rules };
      }
      return (await cached.rules).filter((rule) => rule.kind === kind);
    },

    /** The plaintext secret of a rule, to sign its deliveries with. */
    async secretOf(ruleId: string): Promise<string[]> {
      const row = await existing(ruleId);
      return [deps.secrets.open(row.secret_ciphertext, secretContext(ruleId))];
    },
  };
}

export type AlertRules = ReturnType<typeof createAlertRules>;
