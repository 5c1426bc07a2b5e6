import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REDACTED, redact } from './redact.js';

test('redact: keys, passwords, secrets and tokens at any depth; their absence and the rest kept', () => {
  assert.deepEqual(
    redact({
      key: 'sk-live',
      api_key: 'atl_x',
      password: 'hunter2',
      webhook_secret: 'whsec',
      nested: { refresh_token: 'rt', hint: 'atl_…abcd', items: [{ secret: 's', name: 'n' }] },
      key_id: 'key_1',
      has_key: true,
      previous_secret: null,
      tier: 'pro',
    }),
    {
      key: REDACTED,
      api_key: REDACTED,
      password: REDACTED,
      webhook_secret: REDACTED,
      nested: { refresh_token: REDACTED, hint: 'atl_…abcd', items: [{ secret: REDACTED, name: 'n' }] },
      key_id: 'key_1',
      has_key: true,
      previous_secret: null,
      tier: 'pro',
    },
  );
});
