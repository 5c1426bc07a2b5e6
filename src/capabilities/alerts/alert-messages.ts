import type { AlertFormat, AlertKind } from '../../base/contract/admin-alerts.js';

/** One event an alert reports: its kind, when, a one-line summary and its facts. */
export interface AlertEvent {
  kind: AlertKind | 'test';
  at: number;
  /** One line a person reads first (Slack's notification text). */
  summary: string;
  data: Record<string, unknown>;
}

/** Slack's limits: a header's text is at most 150 characters, a section's 3,000. */
const HEADER_MAX = 150;
const SECTION_MAX = 3000;

/** Slack reads `&`, `<` and `>` as markup (`<!channel>` would ping everyone): escaped before use. */
export const slackEscape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** A fact's value as one line of text. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return value.map(shown).join('; ');
  if (value === null || value === undefined) return '—';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * The body of an alert message. `standard`: `{ type, timestamp, data }` like a task webhook's;
 * `slack`: an incoming webhook's `{ text, blocks }` — `text` is the notification's fallback, the
 * blocks a header, the facts as a mrkdwn section and the kind and time as context (Block Kit).
 */
export function alertBody(event: AlertEvent, format: AlertFormat): string {
  const timestamp = new Date(event.at).toISOString();
  if (format === 'standard')
    return JSON.stringify({ type: event.kind, timestamp, summary: event.summary, data: event.data });
  const facts = Object.entries(event.data)
    .map(([name, value]) => `*${slackEscape(name)}*: ${slackEscape(shown(value))}`)
    .join('\n');
  const text = `Atelier alert: ${event.summary}`;
  return JSON.stringify({
    text: slackEscape(text),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: cut(text, HEADER_MAX) } },
      ...(facts ? [{ type: 'section', text: { type: 'mrkdwn', text: cut(facts, SECTION_MAX) } }] : []),
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: `${slackEscape(event.kind)} · ${timestamp}` }],
      },
    ],
  });
}
