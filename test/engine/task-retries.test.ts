import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isFinalStatus } from '../../src/base/domain/task-status.js';
import { systemClock } from '../../src/base/runtime/clock.js';
import { createLocalProvider } from '../../src/capabilities/providers/local-provider.js';
import type { ImageProvider, SubmitOutcome } from '../../src/capabilities/providers/provider.js';
import { createCore } from '../../src/core.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { freshTestDataEnv, removeTestData } from '../support/test-database.js';

// How a task spends its attempts: only calls that reached the upstream count. An open circuit
// breaker answers without calling anyone, so its fail-fasts wait for the probe without using up the
// task's attempts (the task deadline still bounds the wait).

const circuitOpen: SubmitOutcome = {
  kind: 'failed',
  message: 'provider local unavailable: too many upstream failures in a row, retrying later',
  retryable: true,
  retryAfterMs: 10,
  cause: 'circuit_open',
};

test('fail-fasts of an open circuit spend no attempt: the task completes after more of them than its attempt limit', async () => {
  const config = loadConfig({
    ...(await freshTestDataEnv('task-retries-')),
    LOG_LEVEL: 'silent',
    ATELIER_SUBMIT_MAX_ATTEMPTS: '2',
  });
  const local = createLocalProvider({ clock: systemClock, latencyMs: 10 });
  const outcomes = [circuitOpen, circuitOpen, circuitOpen, circuitOpen];
  let submits = 0;
  const provider: ImageProvider = {
    ...local,
    submitsInline: false,
    async submit(request) {
      submits += 1;
      return outcomes.shift() ?? local.submit(request);
    },
  };
  const core = await createCore(config, {
    idlePollMs: 20,
    providers: {
      get: (n) => (n === 'local' ? provider : undefined),
      names: () => ['local'],
      deploymentKeys: {},
    },
  });
  try {
    const { account } = await core.accounts.create({ email: 'circuit@example.test' });
    const { task_ids } = await core.generations.generate(account, {
      prompt: 'wait for the probe',
      imageSize: '1K',
    });
    const taskId = task_ids[0] ?? '';
    const final = await new Promise<string>((resolve) => {
      const unsubscribe = core.taskEvents.subscribe(account.id, {
        onChange: ({ record }) => {
          if (record.task_id !== taskId || !isFinalStatus(record.status)) return;
          unsubscribe();
          resolve(record.status === 'failed' ? `failed: ${record.error}` : record.status);
        },
        onResync: () => undefined,
      });
      core.engine.start();
    });
    assert.equal(final, 'completed');
    assert.equal(submits, 5, 'four fail-fasts, then the call that went through');
  } finally {
    await core.close(500);
    await removeTestData(config);
  }
});
