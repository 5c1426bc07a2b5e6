import { readdirSync, readFileSync, stat } from 'node:fs';
import { setPriority } from 'node:os';

/** The niceness given to the libuv pool threads (the event loop's thread stays at 0). */
export const POOL_THREAD_NICENESS = 10;

/**
 * Lowers the scheduling priority of the process's libuv pool threads, where image work runs
 * (sharp's renders, decodes and encodes), as do file I/O and password hashing. When the cores are
 * all busy the event loop — every request's answer — goes first and the pool takes the rest; when
 * they are not, the pool runs as fast as before (niceness only weighs shares of a contended core).
 * The threads libvips starts from the pool inherit it. Linux only (the threads are found in
 * /proc/self/task by their name, `libuv-worker`, on every supported Node.js); elsewhere nothing
 * changes. Answers how many threads were lowered.
 */
export async function lowerPoolThreadPriority(niceness = POOL_THREAD_NICENESS): Promise<number> {
  if (process.platform !== 'linux') return 0;
  // The pool starts its threads at its first use.
  await new Promise<void>((resolve) => stat('/', () => resolve()));
  let lowered = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== 'libuv-worker') continue;
      setPriority(Number(tid), niceness);
      lowered++;
    } catch {
      // The thread ended meanwhile, or /proc cannot be read: leave it.
    }
  }
  return lowered;
}
