/**
 * `promise`, or a failure naming `what` once `ms` have passed: a deadline, not a wait. Its timer also
 * keeps the test's event loop alive while the promise waits on timers that do not (a node's refresh
 * loop is `unref`'d: Node.js 22's runner would otherwise end the test as still pending).
 */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
