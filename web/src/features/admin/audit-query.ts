/** The audit log's filters: kept in the console's URL, sent to the admin API and its export. */
import type { AuditAction, AuditTargetType } from '../../../../src/base/contract/admin-audit.js';
import { msOfIso, queryOf, timeWords } from './log-format.js';

/**
 * The audit log's filters as the page's URL keeps them: the admin API's names, with `from` and `to`
 * as ISO instants (absolute: a link shows the same events whenever it is opened).
 */
export const AUDIT_FILTER_NAMES = ['actor', 'action', 'target_type', 'target_id', 'from', 'to'] as const;
export type AuditFilters = Record<(typeof AUDIT_FILTER_NAMES)[number], string>;

export const AUDIT_PATH = '/admin/audit';
const TIMES = new Set(['from', 'to']);

/**
 * Every action of the contract's AUDIT_ACTIONS, in its words (typed as a record of them all, so an
 * action added there and not here fails the website's type check; a value import of the contract
 * would bring Zod into the console's bundle).
 */
export const ACTION_LABELS: Record<AuditAction, string> = {
  'account.create': 'Account created',
  'account.update': 'Account changed (tier, disabled)',
  'account.set-operator': 'Operator set or removed',
  'account.export': 'Account exported (works and uploads)',
  'account.erase': 'Account erased',
  'password.reset': 'Password reset',
  'password.set': 'Password set',
  'budget.set': 'Account budget set',
  'retention.set': 'Account retention set',
  'key.create': 'API key created',
  'key.revoke': 'API key revoked',
  'key.rotate': 'API key rotated',
  'key.budget.set': 'API key budget set',
  'key.retention.set': 'API key retention set',
  'webhook-secret.rotate': 'Webhook secret rotated',
  'upstream-key.set': "Account's upstream key set",
  'provider-key.add': 'Upstream pool key added',
  'provider-key.update': 'Upstream pool key changed',
  'provider-key.remove': 'Upstream pool key removed',
  'policy.replace': 'Tier policies replaced',
  'policy.tier.update': "A tier's limits changed",
  'policy.import': 'Tier policies imported from the file',
  'catalog.update': 'Catalog changed',
  'catalog.import': 'Catalog imported from the file',
  'catalog.route.test': 'Route tested',
  'queue.cancel': 'Queued tasks canceled',
  'alert.create': 'Alert rule created',
  'alert.update': 'Alert rule changed',
  'alert.delete': 'Alert rule deleted',
  'alert.test': 'Test alert sent',
};

export const TARGET_LABELS: Record<AuditTargetType, string> = {
  account: 'account',
  'api-key': 'API key',
  'provider-key': 'upstream pool key',
  'tier-policy': 'tier policy',
  task: 'task',
  route: 'route',
  'alert-rule': 'alert rule',
  catalog: 'catalog',
  'catalog-route': 'catalog route',
};

/** The filters a URL's query holds (absent ones empty). */
export function auditFiltersOf(search: URLSearchParams): AuditFilters {
  const entries = AUDIT_FILTER_NAMES.map((name) => [name, search.get(name)?.trim() ?? '']);
  // A time that is not an instant is no filter (a hand-edited URL): dropped, not sent, not said.
  for (const entry of entries)
    if (TIMES.has(entry[0] ?? '') && msOfIso(entry[1]) === undefined) entry[1] = '';
  return Object.fromEntries(entries) as AuditFilters;
}

/** The console's URL of the audit log with these filters. */
export function auditUrl(filters: Partial<AuditFilters>): string {
  const query = queryOf(Object.fromEntries(AUDIT_FILTER_NAMES.map((name) => [name, filters[name]])));
  return query ? `${AUDIT_PATH}?${query}` : AUDIT_PATH;
}

/** The admin API's filter query (times as epoch ms): the list's, and the export's. */
export function auditApiFilter(filters: AuditFilters): Record<string, string | number | undefined> {
  return { ...filters, from: msOfIso(filters.from), to: msOfIso(filters.to) };
}

/** The export of every event these filters keep (NDJSON), as a download link's address. */
export const auditExportHref = (filters: AuditFilters) => {
  const query = queryOf(auditApiFilter(filters));
  return `/api/admin/v1/audit/export${query ? `?${query}` : ''}`;
};

/** The filters in words, for the empty state. */
export function describeAuditFilters(filters: AuditFilters): string {
  const words: Record<keyof AuditFilters, (value: string) => string> = {
    actor: (v) => `by ${v}`,
    action: (v) => `action ${v}`,
    target_type: (v) => `on a ${v}`,
    target_id: (v) => `target ${v}`,
    from: (v) => `from ${timeWords(v)}`,
    to: (v) => `before ${timeWords(v)}`,
  };
  return AUDIT_FILTER_NAMES.filter((name) => filters[name])
    .map((name) => words[name](filters[name]))
    .join(', ');
}
