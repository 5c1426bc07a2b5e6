import { useRef } from 'react';
import type { z } from 'zod';
import type { AuditEventWire, adminAuditPageSchema } from '../../../../src/base/contract/admin-audit';
import { api } from '../../lib/api';
import { Link, useLocation } from '../../lib/router';
import { LoadMore } from '../../ui/load-more';
import { LoadState } from './admin-kit';
import { AuditDiff } from './audit-diff';
import { AuditFilterForm } from './audit-filters';
import {
  ACTION_LABELS,
  AUDIT_PATH,
  type AuditFilters,
  auditApiFilter,
  auditExportHref,
  auditFiltersOf,
  auditUrl,
  describeAuditFilters,
} from './audit-query';
import { useKeysetPages } from './keyset-pages';
import { instant, queryOf } from './log-format';

type AuditPage = z.output<typeof adminAuditPageSchema>;

const SOURCES: Record<AuditEventWire['source'], string> = {
  'admin-api': 'admin API',
  website: 'console',
  cli: 'CLI',
  file: 'a file read at start',
};

/** A page of events from the admin API. */
async function fetchEvents(query: string, cursor: string | undefined, signal: AbortSignal) {
  const filters = auditFiltersOf(new URLSearchParams(query));
  const wire = queryOf({ ...auditApiFilter(filters), limit: 50, cursor });
  const page = await api.get<AuditPage>(`/api/admin/v1/audit?${wire}`, { signal });
  return { items: page.items, next: page.next_cursor };
}

/** Where an event's target is in the console: an account's page, when it is an account. */
function Target({ event }: { event: AuditEventWire }) {
  const id = <code>{event.target_id}</code>;
  if (event.target_type !== 'account') return id;
  return <Link href={`/admin/accounts/${encodeURIComponent(event.target_id)}`}>{id}</Link>;
}

/** One event: what, to what, who, when, from where, and the fields it changed. */
function AuditEntry({ event }: { event: AuditEventWire }) {
  return (
    <li className="audit-event">
      <div>
        <strong>{ACTION_LABELS[event.action] ?? event.action}</strong> (<code>{event.action}</code>) on{' '}
        {event.target_type} <Target event={event} />
      </div>
      <div className="small muted">
        by {event.actor} ({SOURCES[event.source]}) ·{' '}
        <time dateTime={new Date(event.at).toISOString()}>{instant(event.at)}</time>
      </div>
      <AuditDiff event={event} />
    </li>
  );
}

/** What an empty log says: what was searched. */
function NoEvents({ filters }: { filters: AuditFilters }) {
  const described = describeAuditFilters(filters);
  return (
    <div className="empty">
      <p>{described ? `No change matches ${described}.` : 'No operator change has been recorded yet.'}</p>
      {described && (
        <p>
          <Link href={AUDIT_PATH}>Show every change</Link>
        </p>
      )}
    </div>
  );
}

/**
 * The audit log: every change operators made (admin API, console, CLI), newest first, filtered by
 * the URL's query, a page at a time, with the export of everything the filters keep.
 */
export default function AuditPage() {
  const { search } = useLocation();
  const filters = auditFiltersOf(search);
  const query = auditUrl(filters).split('?')[1] ?? '';
  const log = useKeysetPages(query, fetchEvents);
  const sentinel = useRef<HTMLDivElement>(null);
  return (
    <div className="admin-page">
      <section className="panel stack" aria-labelledby="audit-heading">
        <div className="row between wrap">
          <h2 id="audit-heading">Audit log</h2>
          <a className="button" href={auditExportHref(filters)} download>
            Export (NDJSON)
          </a>
        </div>
        <p className="small muted">
          Every change made through the admin API, this console or the operator CLI, newest first. Secrets are
          never recorded: they read “[redacted]”. The export holds every event the filters keep.
        </p>
        <AuditFilterForm key={query} initial={filters} />
        <LoadState error={log.items ? undefined : log.error} loading={log.loading && !log.items} />
        {log.items && log.items.length === 0 && <NoEvents filters={filters} />}
        {log.items && log.items.length > 0 && (
          <ol className="audit-list" aria-label="Changes, newest first">
            {log.items.map((event) => (
              <AuditEntry key={event.id} event={event} />
            ))}
          </ol>
        )}
        {log.items && (
          <LoadMore
            sentinel={sentinel}
            more={log.more}
            loading={log.loading}
            error={log.error}
            onLoadMore={log.loadMore}
          />
        )}
      </section>
    </div>
  );
}
