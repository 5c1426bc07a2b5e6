/**
 * Latency of one request kind, as a median over `samples` requests made one after another: the
 * measure of "the other account's requests" in the resource-cap tests (issue 25). A median of
 * sequential requests ignores a few slow turns of a loaded machine; tests compare it idle and under
 * load with a generous factor, never with absolute milliseconds.
 */
export async function medianLatencyMs(samples: number, request: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    await request();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

/** Waits (turn by turn, not by a clock) until `condition` holds; throws after `turns` checks. */
export async function eventually(condition: () => boolean | Promise<boolean>, turns = 20_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('condition not reached');
}
