import { type FormEvent, useState } from 'react';
import type { AuditAction, AuditTargetType } from '../../../../src/base/contract/admin-audit';
import { navigate } from '../../lib/router';
import { FilterButtons, SelectFilter, TextFilter, TimeFilter } from './filter-fields';
import { msOfIso, queryOf } from './log-format';

/**
 * The audit log's filters as the page's URL keeps them: the admin API's names, with `from` and `to`
 * as ISO instants (absolute: a link shows the same events whenever it is opened).
 */
export const AUDIT_FILTER_NAMES = ['actor', 'action', 'target_type', 'target_id', 'from', 'to'] as const;
export type AuditFilters = Record<(typeof AUDIT_FILTER_NAMES)[number], string>;

export const AUDIT_PATH = '/admin/audit';

/**
 * Every action of the contract's AUDIT_ACTIONS, in its words (typed as a record of them all, so an
 * action added there and not here fails the website's type check; a value import of the contract
 * would bring Zod into the console's bundle).
 */
export const ACTION_LABELS: Record<AuditAction, string> = {
  'account.create': 'Account created',
  'account.update': 'Account changed (tier, disabled)',
  'account.set-operator': 'Operator set or removed',
  'password.reset': 'Password reset',
  'password.set': 'Password set',
  'budget.set': 'Account budget set',
  'key.create': 'API key created',
  'key.revoke': 'API key revoked',
  'key.rotate': 'API key rotated',
  'key.budget.set': 'API key budget set',
  'webhook-secret.rotate': 'Webhook secret rotated',
  'upstream-key.set': "Account's upstream key set",
  'provider-key.add': 'Upstream pool key added',
  'provider-key.update': 'Upstream pool key changed',
  'provider-key.remove': 'Upstream pool key removed',
};

const TARGET_LABELS: Record<AuditTargetType, string> = {
  account: 'account',
  'api-key': 'API key',
  'provider-key': 'upstream pool key',
};

/** The filters a URL's query holds (absent ones empty). */
export function auditFiltersOf(search: URLSearchParams): AuditFilters {
  const entries = AUDIT_FILTER_NAMES.map((name) => [name, search.get(name)?.trim() ?? '']);
  return Object.fromEntries(entries) as AuditFilters;
}

/** The console's URL of the audit log with these filters. */
export function auditUrl(filters: Partial<AuditFilters>): string {
  const query = queryOf(filters);
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
    from: (v) => `from ${new Date(v).toLocaleString('en')}`,
    to: (v) => `before ${new Date(v).toLocaleString('en')}`,
  };
  return AUDIT_FILTER_NAMES.filter((name) => filters[name])
    .map((name) => words[name](filters[name]))
    .join(', ');
}

/** The filters as a form: applied on Filter, which puts them in the URL. */
export function AuditFilterForm({ initial }: { initial: AuditFilters }) {
  const [filters, setFilters] = useState<AuditFilters>(initial);
  const set = (name: keyof AuditFilters) => (value: string) => setFilters({ ...filters, [name]: value });
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = Object.fromEntries(AUDIT_FILTER_NAMES.map((name) => [name, filters[name].trim()]));
    navigate(auditUrl(trimmed));
  };
  return (
    <form className="admin-filters log-filters" onSubmit={apply} aria-label="Filter the audit log">
      <TextFilter label="Who (e-mail or cli:user)" value={filters.actor} onChange={set('actor')} />
      <SelectFilter label="Action" value={filters.action} labels={ACTION_LABELS} onChange={set('action')} />
      <SelectFilter
        label="Target type"
        value={filters.target_type}
        labels={TARGET_LABELS}
        onChange={set('target_type')}
      />
      <TextFilter label="Target id" value={filters.target_id} onChange={set('target_id')} />
      <TimeFilter label="From" value={filters.from} onChange={set('from')} />
      <TimeFilter label="Before" value={filters.to} onChange={set('to')} />
      <FilterButtons clearHref={AUDIT_PATH} />
    </form>
  );
}
