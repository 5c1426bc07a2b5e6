import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const moduleUrl = new URL('./pool-priority.ts', import.meta.url).href;

test('the pool threads, and only they, get the lower priority', {
  skip: process.platform !== 'linux',
}, () => {
  // In a process of its own: the test runner's threads keep theirs.
  const script = `
    import { readdirSync, readFileSync } from 'node:fs';
    import { getPriority } from 'node:os';
    import { lowerPoolThreadPriority, POOL_THREAD_NICENESS } from ${JSON.stringify(moduleUrl)};
    const lowered = await lowerPoolThreadPriority();
    const threads = readdirSync('/proc/self/task').map((tid) => ({
      tid: Number(tid),
      name: readFileSync('/proc/self/task/' + tid + '/comm', 'utf8').trim(),
      niceness: getPriority(Number(tid)),
    }));
    process.stdout.write(JSON.stringify({ lowered, threads, expected: POOL_THREAD_NICENESS, pid: process.pid }));
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  const { lowered, threads, expected, pid } = JSON.parse(child.stdout) as {
    lowered: number;
    threads: Array<{ tid: number; name: string; niceness: number }>;
    expected: number;
    pid: number;
  };
  const pool = threads.filter((thread) => thread.name === 'libuv-worker');
  assert.ok(pool.length >= 1, 'the pool has started');
  assert.equal(lowered, pool.length);
  assert.deepEqual(
    pool.map((thread) => thread.niceness),
    pool.map(() => expected),
  );
  const others = threads.filter((thread) => thread.name !== 'libuv-worker');
  // The event loop's thread is the one whose id is the process's (its name differs across versions).
  assert.ok(others.some((thread) => thread.tid === pid));
  for (const thread of others) assert.equal(thread.niceness, 0, `${thread.name} keeps its priority`);
});
