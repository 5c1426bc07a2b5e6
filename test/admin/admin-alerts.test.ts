import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { AlertDeliveriesWire, CreatedAlertWire } from '../../src/base/contract/admin-alerts.js';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/providers/fake-openai.js';
import { assertError, pollUntilFinal } from '../support/api-helpers.js';
import { type Received, startReceiver, waitFor } from '../support/scripted-webhook-receiver.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { ADMIN, operatorAndUser, requests } from './admin-support.js';

// Alerts (issue 43): each kind of event reaches its rule's webhook once, signed with the rule's own
// secret (verified with the Standard Webhooks reference library), retried when the receiver fails,
// in the Slack format on request; two nodes on one database send one alert per event.

const UPSTREAM_KEY = 'sk-upstream-of-the-alerts-test';
const DEAD_KEY = 'sk-revoked-pool-key-never-shown-0';
const DOLLAR = 1_000_000;

/** The received body verified against the rule's secret (throws when the signature is wrong). */
function verified(secret: string, request: Received) {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(request.body, headers) as {
    type: string;
    timestamp: string;
    summary: string;
    data: Record<string, unknown>;
  };
}

describe('alerts: delivered once per event, signed, retried', () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;
  let r: ReturnType<typeof requests>;
  let dir: string;
  let catalog: string;

  const create = async (body: Record<string, unknown>) => {
    const res = await r.send('POST', `${ADMIN}/alerts`, who.op, body);
    assert.equal(res.statusCode, 201, res.body);
    return res.json<CreatedAlertWire>();
  };
  const generate = async (body: Record<string, unknown>) => {
    const res = await r.send('POST', '/api/v1/generate', who.plain, { imageSize: '1K', ...body });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ task_ids: string[] }>().task_ids;
  };
  const finish = async (body: Record<string, unknown>) => {
    for (const id of await generate(body)) await pollUntilFinal(t.app, who.user.apiKey, id);
  };
  const deliveries = async (ruleId: string) =>
    (await r.get(`${ADMIN}/alerts/deliveries?rule_id=${ruleId}`, who.op)).json<AlertDeliveriesWire>()
      .deliveries;

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY });
    receiver = await startReceiver();
    dir = await mkdtemp(join(tmpdir(), 'atelier-alerts-'));
    catalog = join(dir, 'catalog.json');
    const text = { modes: ['text'] };
    await writeFile(
      catalog,
      JSON.stringify({
        models: [
          ...DEFAULT_CATALOG.models,
          { id: 'upstream', provider: 'openai', upstreamModel: 'gpt-image-1.5', ...text },
          { id: 'broken', provider: 'openai', upstreamModel: 'gpt-image-2', ...text },
          // The local renderer priced at $0.10 an image at 1K, and a route of its own that fails.
          {
            id: 'priced',
            provider: 'local',
            upstreamModel: 'local-v1',
            price: { perImage: { '1K': 100_000 } },
            ...text,
          },
          { id: 'flaky', provider: 'local', upstreamModel: 'local-flaky', ...text },
          { id: 'shaky', provider: 'local', upstreamModel: 'local-shaky', ...text },
        ],
      }),
    );
    t = await createTestApp({
      env: {
        ATELIER_CATALOG: catalog,
        ATELIER_OPENAI_BASE_URL: fake.baseUrl,
        ATELIER_OPENAI_API_KEY: UPSTREAM_KEY,
        ATELIER_SUBMIT_MAX_ATTEMPTS: '1',
        ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${receiver.server.port}`,
        ATELIER_WEBHOOK_RETRY_SCHEDULE_MS: '0,300,300',
      },
    });
    who = await operatorAndUser(t);
    await t.core.accounts.setTier(who.user.id, 'pro');
    r = requests(t);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
    await receiver?.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('rules: created with a secret shown once, listed without it, changed, refused when wrong, audited', async () => {
    const url = receiver.answer('/crud', 204);
    const rule = await create({ kind: 'budget.threshold', url, params: { thresholds: [50, 90] } });
    assert.match(rule.secret, /^whsec_/);
    assert.match(rule.id, /^alr_/);
    assert.deepEqual(
      [rule.kind, rule.format, rule.enabled, rule.params],
      ['budget.threshold', 'standard', true, { thresholds: [50, 90] }],
    );
    const listed = (await r.get(`${ADMIN}/alerts`, who.op)).json<{ rules: Array<Record<string, unknown>> }>();
    const row = listed.rules.find((x) => x.id === rule.id);
    assert.ok(row && !('secret' in row), 'the secret is never listed');
    assert.ok(!JSON.stringify(listed).includes(rule.secret));
    const changed = await r.send('PATCH', `${ADMIN}/alerts/${rule.id}`, who.op, {
      enabled: false,
      format: 'slack',
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual([changed.json().enabled, changed.json().format], [false, 'slack']);
    assertError(
      await r.send('POST', `${ADMIN}/alerts`, who.op, { kind: 'disk.full', url }),
      400,
      'invalid_request',
    );
    assertError(
      await r.send('POST', `${ADMIN}/alerts`, who.op, {
        kind: 'tasks.failure_rate',
        url,
        params: { rate: 2 },
      }),
      400,
      'invalid_request',
    );
    assertError(
      await r.send('POST', `${ADMIN}/alerts`, who.op, { kind: 'budget.threshold', url: 'http://10.0.0.1/x' }),
      400,
      'invalid_request',
    );
    assertError(
      await r.send('PATCH', `${ADMIN}/alerts/alr_missing`, who.op, { enabled: true }),
      404,
      'not_found',
    );
    assertError(
      await r.send('POST', `${ADMIN}/alerts`, who.plain, { kind: 'budget.threshold', url }),
      403,
      'forbidden',
    );
    assertError(await r.get(`${ADMIN}/alerts`, {}), 401, 'unauthorized');
    const removed = await r.send('DELETE', `${ADMIN}/alerts/${rule.id}`, who.op);
    assert.equal(removed.statusCode, 200, removed.body);
    assert.ok(!removed.json().rules.some((x: { id: string }) => x.id === rule.id));
    const audit = (await r.get(`${ADMIN}/audit?target_id=${rule.id}`, who.op)).json<{
      items: Array<{ action: string; after: unknown; before: unknown }>;
    }>();
    assert.deepEqual(
      audit.items.map((item) => item.action),
      ['alert.delete', 'alert.update', 'alert.create'],
    );
    assert.ok(!JSON.stringify(audit).includes(rule.secret), 'the secret is never in the audit log');
  });

  test('a test alert: 500 then 200 is retried and delivered, signed with the rule secret', async () => {
    const url = receiver.answer('/retry', 500, 200);
    const rule = await create({ kind: 'key_pool.key_removed', url });
    const sent = await r.send('POST', `${ADMIN}/alerts/${rule.id}/test`, who.op);
    assert.equal(sent.statusCode, 202, sent.body);
    const retrying = await waitFor('the first attempt failed', async () => {
      const [d] = await deliveries(rule.id);
      return d && d.attempts === 1 ? d : undefined;
    });
    assert.equal(retrying.state, 'pending');
    assert.equal(retrying.last_status_code, 500);
    assert.ok(retrying.next_attempt_at !== null && retrying.next_attempt_at > retrying.created_at);
    const done = await waitFor('the retry delivered', async () => {
      const [d] = await deliveries(rule.id);
      return d?.state === 'succeeded' ? d : undefined;
    });
    assert.deepEqual([done.attempts, done.last_status_code, done.kind], [2, 200, 'test']);
    const [first, second] = receiver.at('/retry');
    assert.ok(first && second);
    assert.equal(first.headers['webhook-id'], done.id);
    assert.equal(second.headers['webhook-id'], done.id, 'the same message id on every attempt');
    const body = verified(rule.secret, second);
    assert.equal(body.type, 'test');
    assert.equal(body.data.rule_id, rule.id);
    assert.throws(
      () => verified(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, second),
      'another secret fails',
    );
    const audit = (await r.get(`${ADMIN}/audit?action=alert.test`, who.op)).json<{ items: unknown[] }>();
    assert.equal(audit.items.length, 1);
  });

  test('a key taken out of its pool: one alert with its name and reason, never the key', async () => {
    const rule = await create({ kind: 'key_pool.key_removed', url: receiver.answer('/keys', 204) });
    const added = await r.send('POST', `${ADMIN}/provider-keys`, who.op, {
      provider: 'openai',
      name: 'revoked-org',
      key: DEAD_KEY,
      weight: 50,
    });
    assert.equal(added.statusCode, 201, added.body);
    await finish({ prompt: 'a lantern', model: 'upstream', count: 4 });
    const [message] = await waitFor('the key alert', async () => {
      const got = receiver.at('/keys');
      return got.length > 0 ? got : undefined;
    });
    assert.ok(message);
    const body = verified(rule.secret, message);
    assert.equal(body.type, 'key_pool.key_removed');
    assert.deepEqual(
      [body.data.provider, body.data.key_name, body.data.reason],
      ['openai', 'revoked-org', 'invalid_key'],
    );
    assert.ok(!message.body.includes(DEAD_KEY), 'the key itself is never sent');
    await finish({ prompt: 'a second lantern', model: 'upstream' });
    assert.equal(receiver.at('/keys').length, 1, 'one alert for one taking-out');
  });

  test('a budget crossing 80% then 100%: one alert each, in the Slack format', async () => {
    const rule = await create({
      kind: 'budget.threshold',
      url: receiver.answer('/budget', 204),
      format: 'slack',
    });
    await t.core.budgets.set(who.user.id, { dailyMicros: DOLLAR / 2 });
    // $0.10 an image: the 4th crosses 80%, the 5th 100%; nothing more is admitted.
    for (const n of [1, 2, 3]) await finish({ prompt: `coin ${n}`, model: 'priced' });
    assert.equal(receiver.at('/budget').length, 0);
    await finish({ prompt: 'coin 4', model: 'priced' });
    const [eighty] = await waitFor('80%', async () =>
      receiver.at('/budget').length === 1 ? receiver.at('/budget') : undefined,
    );
    assert.ok(eighty);
    const slack = verified(rule.secret, eighty) as unknown as {
      text: string;
      blocks: Array<{ type: string; text?: { type: string; text: string } }>;
    };
    assert.match(slack.text, /spent 80% of its daily budget/);
    assert.deepEqual(
      slack.blocks.map((block) => block.type),
      ['header', 'section', 'context'],
    );
    assert.equal(slack.blocks[0]?.text?.type, 'plain_text');
    assert.equal(slack.blocks[1]?.text?.type, 'mrkdwn');
    assert.match(slack.blocks[1]?.text?.text ?? '', /\*threshold_percent\*: 80/);
    await finish({ prompt: 'coin 5', model: 'priced' });
    const both = await waitFor('100%', async () =>
      receiver.at('/budget').length === 2 ? receiver.at('/budget') : undefined,
    );
    assert.match(JSON.parse(both[1]?.body ?? '{}').text, /spent 100% of its daily budget/);
    await t.core.budgets.set(who.user.id, { dailyMicros: null });
    await finish({ prompt: 'coin 6', model: 'priced' });
    const after = (await deliveries(rule.id)).length;
    assert.equal(after, 2, 'once per threshold and period');
  });

  test('a failure rate above the rule: one alert, no storm, again after it recovered', async () => {
    const rule = await create({
      kind: 'tasks.failure_rate',
      url: receiver.answer('/failures', 204),
      params: { rate: 0.5, min_count: 3, window_seconds: 600 },
    });
    const failing = (n: number) => finish({ prompt: `[[fail]] storm ${n}`, model: 'flaky' });
    for (const n of [1, 2]) await failing(n);
    await finish({ prompt: 'calm 1', model: 'flaky' });
    assert.equal((await deliveries(rule.id)).length, 0, 'under min_count: nothing');
    await failing(3);
    await waitFor('the first alert', async () =>
      (await deliveries(rule.id)).length === 1 ? true : undefined,
    );
    for (const n of [4, 5, 6]) await failing(n);
    assert.equal((await deliveries(rule.id)).length, 1, 'no storm while it stays above');
    const [first] = receiver.at('/failures').length > 0 ? receiver.at('/failures') : [];
    assert.ok(first);
    const body = verified(rule.secret, first);
    assert.deepEqual(
      [body.type, body.data.route, body.data.failed, body.data.finished],
      ['tasks.failure_rate', 'local/local-flaky', 3, 4],
    );
    // 6 failed of 12: still at the rate; 6 of 13 recovers; then 2 more failures: 8 of 16 fires again.
    for (const n of [2, 3, 4, 5, 6, 7, 8]) await finish({ prompt: `calm ${n}`, model: 'flaky' });
    assert.equal((await deliveries(rule.id)).length, 1);
    for (const n of [7, 8]) await failing(n);
    await waitFor('the alert after recovery', async () =>
      (await deliveries(rule.id)).length === 2 ? true : undefined,
    );
  });

  test('an upstream whose breaker opens: one alert with its last errors', async () => {
    const rule = await create({ kind: 'upstream.breaker_open', url: receiver.answer('/breaker', 204) });
    fake.script(
      ...Array.from({ length: 5 }, (_, i) => ({
        kind: 'error' as const,
        status: 500,
        json: {
          error: { message: `The server had an error ${i}`, type: 'server_error', param: null, code: null },
        },
      })),
    );
    await finish({ prompt: 'broken 1', model: 'broken', count: 4 });
    // The fifth failure in a row opens the circuit (later submits would wait for its probe).
    await finish({ prompt: 'broken 2', model: 'broken' });
    const [message] = await waitFor('the breaker alert', async () =>
      receiver.at('/breaker').length > 0 ? receiver.at('/breaker') : undefined,
    );
    assert.ok(message);
    const body = verified(rule.secret, message);
    assert.equal(body.type, 'upstream.breaker_open');
    assert.equal(body.data.provider, 'openai');
    assert.ok(Number(body.data.consecutive_failures) >= 5);
    assert.match(String((body.data.last_errors as string[]).at(-1)), /HTTP 500 server_error/);
    assert.equal((await deliveries(rule.id)).length, 1);
  });

  test('two nodes on one database: one alert per event', async () => {
    const b = await createTestApp({
      env: {
        ATELIER_DATABASE_URL: t.core.config.databaseUrl,
        ATELIER_DATA_DIR: t.dataDir,
        ATELIER_CATALOG: catalog,
        ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${receiver.server.port}`,
      },
    });
    try {
      const breaker = await create({
        kind: 'upstream.breaker_open',
        url: receiver.answer('/two-breaker', 204),
      });
      const failures = await create({
        kind: 'tasks.failure_rate',
        url: receiver.answer('/two-failures', 204),
        params: { rate: 0.9, min_count: 1 },
      });
      // Both nodes see gemini's breaker open, and both hear of the same failed task.
      const open = {
        provider: 'gemini',
        state: 'open' as const,
        consecutiveFailures: 5,
        lastErrors: ['HTTP 503'],
      };
      await Promise.all([t.core.alerts.breakerChanged(open), b.core.alerts.breakerChanged(open)]);
      const [taskId] = await generate({ prompt: '[[fail]] once', model: 'shaky' });
      assert.ok(taskId);
      await pollUntilFinal(t.app, who.user.apiKey, taskId);
      const ended = { taskId, accountId: who.user.id, status: 'failed' as const };
      await Promise.all([t.core.alerts.taskEnded(ended), b.core.alerts.taskEnded(ended)]);
      await waitFor('both delivered', async () =>
        receiver.at('/two-breaker').length > 0 && receiver.at('/two-failures').length > 0 ? true : undefined,
      );
      assert.equal((await deliveries(breaker.id)).length, 1);
      assert.equal((await deliveries(failures.id)).length, 1);
      // Closed on node B, opened again on node A: a new episode, a new alert.
      await b.core.alerts.breakerChanged({ ...open, state: 'closed' });
      await t.core.alerts.breakerChanged(open);
      await waitFor('the second episode', async () =>
        (await deliveries(breaker.id)).length === 2 ? true : undefined,
      );
    } finally {
      await b.app.close();
      await b.core.close(1000);
    }
  });
});
