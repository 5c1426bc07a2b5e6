import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alertBody } from './alert-messages.js';

const event = {
  kind: 'key_pool.key_removed' as const,
  at: Date.UTC(2026, 10, 28, 9, 30),
  summary: 'upstream key openai/<!channel> & co taken out of its pool (invalid_key)',
  data: { provider: 'openai', key_name: '<!channel> & co', last_errors: ['a', 'b'], gone: null },
};

test('standard: the event as { type, timestamp, summary, data }', () => {
  assert.deepEqual(JSON.parse(alertBody(event, 'standard')), {
    type: 'key_pool.key_removed',
    timestamp: '2026-11-28T09:30:00.000Z',
    summary: event.summary,
    data: event.data,
  });
});

test("slack: { text, blocks } with Slack's markup characters escaped and its length limits kept", () => {
  const body = JSON.parse(alertBody(event, 'slack'));
  assert.deepEqual(Object.keys(body), ['text', 'blocks']);
  assert.ok(!body.text.includes('<!channel>'), 'no mention reaches Slack unescaped');
  assert.match(body.text, /&lt;!channel&gt; &amp; co/);
  assert.deepEqual(
    body.blocks.map((block: { type: string }) => block.type),
    ['header', 'section', 'context'],
  );
  assert.equal(body.blocks[1].text.type, 'mrkdwn');
  assert.match(
    body.blocks[1].text.text,
    /\*key_name\*: &lt;!channel&gt; &amp; co\n\*last_errors\*: a; b\n\*gone\*: —/,
  );
  assert.equal(body.blocks[2].elements[0].text, 'key_pool.key_removed · 2026-11-28T09:30:00.000Z');
  const long = JSON.parse(
    alertBody({ ...event, summary: 'x'.repeat(400), data: { n: 'y'.repeat(5000) } }, 'slack'),
  );
  assert.equal(long.blocks[0].text.text.length, 150);
  assert.equal(long.blocks[1].text.text.length, 3000);
});
