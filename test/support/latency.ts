import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Latency of one request kind, as a median over `samples` requests made one after another: the
 * measure of "the other account's requests" in the resource-cap tests (issue 25). A median of
 * sequential requests ignores a few slow turns of a loaded machine.
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

/** One trial of {@link compareWithIdle}: the medians just before and during the load. */
export interface LatencyTrial<T> {
  idleMs: number;
  loadedMs: number;
  /** What the load's stop function answered: what the test checks about the load itself. */
  load: T;
}

/**
 * Asserts that `request` (another account's request) stays within `factor` times its idle median
 * while one account is at its limit: the measured half of the resource-cap tests (issue 25).
 *
 * A trial measures the idle median, calls `startLoad()` (which resolves once the flooding account
 * is at its limit, with the function that ends the load), measures the loaded median, then ends the
 * load. Up to `trials` trials (default 3) run; the assertion passes at the first trial within the
 * factor and fails when none is. Every trial's figures are printed under `label`.
 *
 * Why idle right before loaded, and the best of a few trials: on a shared machine (CI runs two test
 * files at once on 2 cores, beside PostgreSQL) a neighbour's burst can fall in one measuring window
 * and not the other: with the fix in place, one run measured idle 5.4 ms, loaded 142 ms (26×).
 * Outside noise comes and goes, so it rarely spoils every trial, while a real slowdown (the missing
 * fixes measured 100-1,000×, every run) shows in every trial: the test still fails without its fix.
 * Interleaving idle and loaded samples would be finer still, but these loads cannot be paused
 * between two requests (streams held open, renditions being made, a hashing pool in use).
 *
 * The trials are answered with each load's own results, so the test can assert that every load
 * was real (the cap reached, the pool busy). `floorMs` (default 1 ms) keeps a sub-millisecond idle
 * median from making the factor meaningless; `warmUp` requests (default 5) are made once, first.
 * `request` is given the trial's index (from 0; the warm-up is trial 0's): where the measured
 * requests spend a quota of their own (keys, uploads), each trial can measure with a fresh account.
 */
export async function compareWithIdle<T>(options: {
  label: string;
  request: (trial: number) => Promise<void>;
  samples: number;
  idleSamples?: number;
  warmUp?: number;
  factor: number;
  floorMs?: number;
  trials?: number;
  startLoad: () => Promise<() => Promise<T>>;
}): Promise<LatencyTrial<T>[]> {
  const { label, request, samples, factor, startLoad } = options;
  const floorMs = options.floorMs ?? 1;
  const ratio = (trial: LatencyTrial<T>) => trial.loadedMs / Math.max(trial.idleMs, floorMs);
  const trials: LatencyTrial<T>[] = [];
  await medianLatencyMs(options.warmUp ?? 5, () => request(0));
  while (trials.length < (options.trials ?? 3)) {
    const measure = (count: number) => medianLatencyMs(count, () => request(trials.length));
    const idleMs = await measure(options.idleSamples ?? samples);
    const stop = await startLoad();
    const loadedMs = await measure(samples).catch(async (error: unknown) => {
      await stop().catch(() => undefined);
      throw error;
    });
    const trial = { idleMs, loadedMs, load: await stop() };
    trials.push(trial);
    console.log(
      `${label}: trial ${trials.length}: idle ${idleMs.toFixed(2)} ms, loaded ${loadedMs.toFixed(2)} ms (${ratio(trial).toFixed(1)}× the greater of idle and ${floorMs} ms; at most ${factor}×)`,
    );
    if (ratio(trial) < factor) break;
  }
  const figures = trials.map((trial) => `${trial.idleMs.toFixed(2)} → ${trial.loadedMs.toFixed(2)} ms`);
  assert.ok(
    trials.some((trial) => ratio(trial) < factor),
    `${label}: over ${factor}× idle in every trial (idle → loaded: ${figures.join(', ')})`,
  );
  return trials;
}

/**
 * One client sending `send()` as fast as it is answered, until its stop function is called;
 * resolves once it has been refused (429) once, i.e. once it is at its limit. Stopping answers the
 * statuses it got. Throws when 1,000 answers come without a refusal.
 */
export async function floodUntilRefused(send: () => Promise<number>): Promise<() => Promise<number[]>> {
  const statuses: number[] = [];
  let flooding = true;
  const flood = (async () => {
    while (flooding) {
      statuses.push(await send());
      // An in-process request that is refused may never leave the microtask queue: yield a turn.
      await nextTurn();
    }
  })();
  while (!statuses.includes(429) && statuses.length < 1000) await nextTurn();
  const stop = async () => {
    flooding = false;
    await flood;
    return statuses;
  };
  if (!statuses.includes(429)) {
    await stop();
    throw new Error(`never refused in ${statuses.length} requests`);
  }
  return stop;
}

/** Waits (turn by turn, not by a clock) until `condition` holds; throws after `turns` checks. */
export async function eventually(condition: () => boolean | Promise<boolean>, turns = 20_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('condition not reached');
}
