import { type FormEvent, useState } from 'react';
import { navigate } from '../../lib/router';
import {
  ACTION_LABELS,
  AUDIT_FILTER_NAMES,
  AUDIT_PATH,
  type AuditFilters,
  auditUrl,
  TARGET_LABELS,
} from './audit-query';
import { FilterButtons, SelectFilter, TextFilter, TimeFilter } from './filter-fields';

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
