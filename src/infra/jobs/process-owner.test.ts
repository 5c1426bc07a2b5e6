import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { createProcessOwner, currentProcessIdentity, type ProcessIdentity } from './process-owner.js';

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const pid = child.pid;
  assert.ok(pid);
  await once(child, 'exit');
  return pid;
}

describe('process owner', () => {
  const me = currentProcessIdentity();
  const owner = createProcessOwner(me);
  const other = (patch: Partial<ProcessIdentity>) => createProcessOwner({ ...me, ...patch }).id;

  test('itself, and any live process on this host, is alive', () => {
    assert.equal(owner.isDead(owner.id), false);
    assert.equal(owner.isDead(other({ pid: process.ppid, token: 'parent' })), false);
    assert.equal(createProcessOwner().id, owner.id, 'every core of one process is one holder');
  });

  test('a process of this host that has ended is dead', async () => {
    assert.equal(owner.isDead(other({ pid: await deadPid(), token: 'gone' })), true);
  });

  test('an earlier process with this pid (a container restarted as pid 1) is dead', () => {
    assert.equal(owner.isDead(other({ token: 'previous-run' })), true);
  });

  test('holders that cannot be checked from here are never called dead', async () => {
    const gone = await deadPid();
    assert.equal(owner.isDead(other({ host: 'another-node', pid: gone })), false);
    assert.equal(owner.isDead(other({ pidNamespace: 'pid:[1]', pid: gone })), false);
    for (const garbage of ['', 'wrk_abc', `${me.host}|x|y`, `${me.host}|${me.pidNamespace}|-4|t`])
      assert.equal(owner.isDead(garbage), false, garbage);
  });

  test('a "|" in the host name cannot forge another identity', () => {
    const odd = createProcessOwner({ ...me, host: 'a|b' });
    assert.equal(odd.id.split('|').length, 4);
    assert.equal(odd.isDead(createProcessOwner({ ...me, host: 'a|b', token: 'earlier' }).id), true);
  });
});
