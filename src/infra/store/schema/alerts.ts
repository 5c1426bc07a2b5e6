import type { DeliveryState } from '../../../base/domain/delivery-states.js';

/** The tables of alerts (src/capabilities/alerts): rules, episodes and the alert outbox (migration 0066). */

/** An operator's alert rule: one kind of event, sent to one webhook, signed with its own secret. */
export interface AlertRulesTable {
  id: string;
  kind: string;
  url: string;
  /** `standard` (the event's JSON) or `slack` (an incoming webhook's `{ text, blocks }`). */
  format: string;
  /** The rule's `whsec_…` signing secret, sealed with the master key (bound to the rule's id). */
  secret_ciphertext: string;
  /** The kind's thresholds (JSON). */
  params_json: string;
  enabled: number;
  created_at: number;
  updated_at: number;
}

/** An event's claim: one row per (rule, subject); `firing` until the subject recovers. */
export interface AlertEpisodesTable {
  rule_id: string;
  subject: string;
  firing: number;
  fired_at: number;
  recovered_at: number | null;
}

/** One alert message (`alm_…`) to one rule's URL, and where its delivery stands. */
export interface AlertDeliveriesTable {
  id: string;
  rule_id: string;
  kind: string;
  subject: string;
  url: string;
  /** The exact body that is signed and sent, the same on every attempt. */
  payload: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

/** The tables above, as the database's schema (`Database`) lists them. */
export interface AlertTables {
  alert_rules: AlertRulesTable;
  alert_episodes: AlertEpisodesTable;
  alert_deliveries: AlertDeliveriesTable;
}
