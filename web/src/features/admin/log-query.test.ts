import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { changedFields, valueText } from './audit-changes.js';
import { auditExportHref, auditFiltersOf, auditUrl, describeAuditFilters } from './audit-query.js';
import { duration, shorten } from './log-format.js';
import {
  describeTaskFilters,
  failedLastHourUrl,
  taskApiQuery,
  taskFiltersOf,
  taskLogUrl,
} from './task-query.js';

describe('the task log’s filters in the URL', () => {
  test('a URL’s filters come back as the same URL, and go to the API with times in epoch ms', () => {
    const url = taskLogUrl({
      status: 'failed',
      error: 'safety system',
      account: 'ann@x.test',
      since: '2026-11-28T21:00:00.000Z',
    });
    assert.equal(
      url,
      '/admin/tasks?account=ann%40x.test&status=failed&since=2026-11-28T21%3A00%3A00.000Z&error=safety+system',
    );
    const filters = taskFiltersOf(new URL(url, 'http://x').searchParams);
    assert.equal(taskLogUrl(filters), url);
    const api = new URLSearchParams(taskApiQuery(filters, 'CURSOR'));
    assert.equal(api.get('since'), String(Date.UTC(2026, 10, 28, 21)));
    assert.equal(api.get('until'), null, 'an empty filter is not sent');
    assert.equal(api.get('cursor'), 'CURSOR');
    assert.equal(api.get('limit'), '50');
    assert.equal(taskLogUrl(taskFiltersOf(new URLSearchParams())), '/admin/tasks');
  });

  test('a time that is not one is not sent; the words say what was searched', () => {
    const filters = taskFiltersOf(new URLSearchParams('since=yesterday&status=in_progress&error=%25'));
    assert.equal(new URLSearchParams(taskApiQuery(filters)).get('since'), null);
    assert.match(describeTaskFilters(filters), /status in progress, error contains “%”/);
  });

  test('"Failed in the last hour" is the hour before the moment it is followed', () => {
    const now = Date.UTC(2026, 10, 28, 22, 30);
    const url = new URL(failedLastHourUrl(now), 'http://x');
    assert.equal(url.searchParams.get('status'), 'failed');
    assert.equal(Date.parse(url.searchParams.get('since') ?? ''), now - 3_600_000);
  });
});

describe('the audit log’s filters and changes', () => {
  test('the export takes the filters in force, times in epoch ms', () => {
    const filters = auditFiltersOf(
      new URLSearchParams('action=key.revoke&from=2026-11-01T00:00:00Z&actor=a%40b.test'),
    );
    assert.equal(
      auditUrl(filters),
      '/admin/audit?actor=a%40b.test&action=key.revoke&from=2026-11-01T00%3A00%3A00Z',
    );
    assert.equal(
      auditExportHref(filters),
      `/api/admin/v1/audit/export?actor=a%40b.test&action=key.revoke&from=${Date.UTC(2026, 10, 1)}`,
    );
    assert.equal(auditExportHref(auditFiltersOf(new URLSearchParams())), '/api/admin/v1/audit/export');
    assert.equal(describeAuditFilters(filters).split(', ')[0], 'by a@b.test');
  });

  test('an update lists only the fields that changed; a creation and a removal every field', () => {
    const before = { tier: 'trial', disabled: false, budget: { daily_micros: null, monthly_micros: 5 } };
    const after = {
      tier: 'standard',
      disabled: false,
      budget: { daily_micros: 3_250_000, monthly_micros: 5 },
    };
    assert.deepEqual(changedFields(before, after), [
      { field: 'tier', before: 'trial', after: 'standard' },
      { field: 'budget.daily_micros', before: null, after: 3_250_000 },
    ]);
    assert.deepEqual(
      changedFields(null, { name: 'ci', revoked_at: null }).map((change) => change.field),
      ['name', 'revoked_at'],
    );
    assert.deepEqual(changedFields({ name: 'ci' }, null), [
      { field: 'name', before: 'ci', after: undefined },
    ]);
    assert.deepEqual(changedFields({ a: 1 }, { a: 1 }), []);
  });

  test('values read as people read them', () => {
    assert.equal(valueText('daily_micros', 3_250_000), '$3.25');
    assert.equal(valueText('daily_micros', null), '—');
    assert.equal(valueText('password', '[redacted]'), '[redacted]');
    assert.equal(valueText('enabled', false), 'false');
    assert.match(valueText('revoked_at', Date.UTC(2026, 10, 28, 12)), /2026/);
  });
});

describe('durations and shortened texts', () => {
  test('each scale', () => {
    assert.deepEqual([null, 850, 3_240, 42_000, 245_000, 7_800_000].map(duration), [
      '—',
      '850 ms',
      '3.2 s',
      '42 s',
      '4 min 5 s',
      '2 h 10 min',
    ]);
    assert.equal(shorten('abc', 5), 'abc');
    assert.equal(shorten('abcdefgh', 5), 'abcd…');
  });
});
