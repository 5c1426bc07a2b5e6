import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expiryOption } from './keys-command.js';

const now = Date.UTC(2026, 10, 25);

test('--expires-in takes a positive amount of s, m, h or d; --expires-at an ISO time; not both', () => {
  assert.equal(expiryOption(undefined, undefined, now), null);
  assert.equal(expiryOption('30d', undefined, now), now + 30 * 86_400_000);
  assert.equal(expiryOption('12h', undefined, now), now + 12 * 3_600_000);
  assert.equal(expiryOption('90m', undefined, now), now + 90 * 60_000);
  assert.equal(expiryOption('3600s', undefined, now), now + 3_600_000);
  assert.equal(expiryOption(undefined, '2027-01-01T00:00:00Z', now), Date.UTC(2027, 0, 1));
  for (const bad of ['30', '0d', '-1d', '1w', 'd', '1.5h']) {
    assert.throws(() => expiryOption(bad, undefined, now), /--expires-in/, bad);
  }
  for (const bad of ['tomorrow', '', '12/31/2026']) {
    assert.throws(() => expiryOption(undefined, bad, now), /--expires-at/, bad);
  }
  assert.throws(() => expiryOption('1d', '2027-01-01', now), /not both/);
});
