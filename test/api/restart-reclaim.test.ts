import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { leaseOwnerId } from '../../src/infra/jobs/dead-lease-reclaim.js';
import { createProcessOwner, currentProcessIdentity } from '../../src/infra/jobs/process-owner.js';
import { bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp } from '../support/test-server.js';

/** The pid of a process that has ended (a child run to completion). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

describe('a restart on the same host takes back the leases of its dead predecessor at once', () => {
  test('tasks leased for ten minutes by a dead process on this host finish without waiting', async () => {
    const before = await createTestApp({ startEngine: false });
    const { apiKey } = await before.createAccount();
    const generated = await before.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: bearer(apiKey),
      payload: { prompt: 'left behind by a crash', count: 2 },
    });
    const ids = generated.json().task_ids as string[];
    // As a node killed with SIGKILL leaves them: leased by a process of this host that is gone.
    const dead = createProcessOwner({ ...currentProcessIdentity(), pid: await deadPid(), token: 'previous' });
    const stillAlive = createProcessOwner({ ...currentProcessIdentity(), pid: 1, token: 'init' });
    await before.core.resources.db
      .updateTable('tasks')
      .set({ lease_owner: leaseOwnerId(dead, 'wrk_dead'), lease_expires_at: Date.now() + 600_000 })
      .where('id', '=', ids[0] as string)
      .execute();
    await before.core.resources.db
      .updateTable('tasks')
      .set({ lease_owner: leaseOwnerId(stillAlive, 'wrk_alive'), lease_expires_at: Date.now() + 600_000 })
      .where('id', '=', ids[1] as string)
      .execute();

    const after = await createTestApp({
      env: { ATELIER_DATA_DIR: before.dataDir, ATELIER_DATABASE_URL: before.core.config.databaseUrl },
    });
    try {
      // Bounded far below the ten-minute lease: only a takeover at start can finish it in time.
      const { final } = await pollUntilFinal(after.app, apiKey, ids[0] as string, 60_000);
      assert.equal(final.status, 'completed');
      const alive = await after.core.resources.db
        .selectFrom('tasks')
        .select(['status', 'lease_owner'])
        .where('id', '=', ids[1] as string)
        .executeTakeFirstOrThrow();
      assert.equal(alive.lease_owner, leaseOwnerId(stillAlive, 'wrk_alive'), 'a live holder keeps its lease');
      assert.notEqual(alive.status, 'completed');
    } finally {
      // The first app shares the second's data: close it without removing them, then the second.
      await before.app.close();
      await before.core.close(0);
      await after.close();
    }
  });
});
