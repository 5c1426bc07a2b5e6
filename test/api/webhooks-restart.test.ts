import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCore } from '../../src/core.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { startReceiver, verify, waitFor } from '../support/scripted-webhook-receiver.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';

test('deliveries survive a restart in the middle of their retries', async () => {
  const receiver = await startReceiver();
  const config = loadConfig({
    ...(await freshTestDataEnv('atelier-webhooks-')),
    LOG_LEVEL: 'silent',
    ATELIER_DEMO_ACCOUNT: 'false',
    ATELIER_LOCAL_LATENCY_MS: '100',
    ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${receiver.server.port}`,
    // First attempt at once, the second 1.5 s later: time enough to stop in between.
    ATELIER_WEBHOOK_RETRY_SCHEDULE_MS: '0,1500,1500',
  });
  const url = receiver.answer('/hooks/restart', 503, 204);
  const first = await createCore(config, { idlePollMs: 20 });
  let firstClosed = false;
  let second: Awaited<ReturnType<typeof createCore>> | undefined;
  try {
    first.engine.start();
    first.webhooks.start();
    const { account } = await first.accounts.create({ email: 'restart@example.test' });
    const secret = await first.webhooks.secretFor(account.id);
    const { task_ids } = await first.generations.generate(account, {
      prompt: 'survive a restart',
      imageSize: '1K',
      callbackUrl: url,
    });
    const pending = await waitFor('first attempt', async () => {
      const { items } = await first.webhooks.listDeliveries(account.id, 1, 20);
      return items[0]?.attempts === 1 ? items[0] : undefined;
    });
    assert.equal(pending.state, 'pending');
    assert.equal(pending.last_status_code, 503);
    assert.equal(pending.task_id, task_ids[0]);
    await first.close(500);
    firstClosed = true;
    assert.equal(receiver.at('/hooks/restart').length, 1);

    second = await createCore(config, { idlePollMs: 20 });
    second.engine.start();
    second.webhooks.start();
    const core = second;
    const done = await waitFor('delivery after restart', async () => {
      const { items } = await core.webhooks.listDeliveries(account.id, 1, 20);
      return items[0]?.state === 'succeeded' ? items[0] : undefined;
    });
    assert.equal(done.id, pending.id);
    assert.equal(done.attempts, 2);
    const requests = receiver.at('/hooks/restart');
    assert.equal(requests.length, 2);
    for (const request of requests) {
      assert.equal(request.headers['webhook-id'], pending.id);
      assert.equal(verify(secret, request).data.task_id, task_ids[0]);
    }
  } finally {
    if (!firstClosed) await first.close(500);
    await second?.close(500);
    await receiver.server.close();
    await removeTestData(config);
  }
});

test('a finished task whose delivery was never enqueued (a crash in between) is enqueued at the next start', async () => {
  const receiver = await startReceiver();
  const config = loadConfig({
    ...(await freshTestDataEnv('atelier-webhooks-')),
    LOG_LEVEL: 'silent',
    ATELIER_DEMO_ACCOUNT: 'false',
    ATELIER_LOCAL_LATENCY_MS: '50',
    ATELIER_UPLOAD_ALLOWED_HOSTS: `127.0.0.1:${receiver.server.port}`,
  });
  const url = receiver.answer('/hooks/swept');
  const first = await createCore(config, { idlePollMs: 20 });
  let second: Awaited<ReturnType<typeof createCore>> | undefined;
  try {
    first.engine.start();
    const { account } = await first.accounts.create({ email: 'sweep@example.test' });
    const { task_ids } = await first.generations.generate(account, {
      prompt: 'lost notification',
      imageSize: '1K',
      callbackUrl: url,
    });
    const taskId = task_ids[0] ?? '';
    await waitFor('task done', async () => {
      const row = await first.tasks.findForAccount(account.id, taskId);
      return row?.status === 'completed' ? row : undefined;
    });
    await first.close(500);
    // The process "crashed" after the task's final write and before its delivery row was written.
    const raw = await createCore(config);
    await raw.resources.db.deleteFrom('webhook_deliveries').execute();
    await raw.close(0);
    assert.equal(receiver.at('/hooks/swept').length, 0);

    second = await createCore(config, { idlePollMs: 20 });
    second.webhooks.start();
    const secret = await second.webhooks.secretFor(account.id);
    const request = await waitFor('swept delivery', async () => receiver.at('/hooks/swept')[0]);
    const payload = verify(secret, request);
    assert.equal(payload.type, 'task.completed');
    assert.equal(payload.data.task_id, taskId);
  } finally {
    await second?.close(500);
    await receiver.server.close();
    await removeTestData(config);
  }
});
