import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { LatencyHistogram } from './latency-histogram.js';

const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LABEL_SETS = [
  { method: 'GET', route: '/api/v1/tasks/:task_id', status: '200' },
  { method: 'GET', route: '/api/v1/tasks/:task_id', status: '404' },
  { method: 'POST', route: '/api/v1/generate', status: '200' },
];

/** The same observations recorded by prom-client's own Histogram and by ours, each in its registry. */
function bothRecord(observations: Array<[number, number]>) {
  const theirs = new Registry();
  const ours = new Registry();
  const reference = new Histogram({
    name: 'x_seconds',
    help: 'Latency',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: BOUNDS,
    registers: [theirs],
  });
  const histogram = new LatencyHistogram('x_seconds', 'Latency', BOUNDS, [ours]);
  for (const [which, seconds] of observations) {
    const labels = LABEL_SETS[which] as (typeof LABEL_SETS)[number];
    reference.labels(labels).observe(seconds);
    histogram.series(labels).observe(seconds);
  }
  return { theirs, ours, histogram };
}

test("exports exactly what prom-client's Histogram exports for the same observations (text and JSON)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.tuple(
          fc.integer({ min: 0, max: LABEL_SETS.length - 1 }),
          fc.oneof(fc.constantFrom(...BOUNDS, 0, 31), fc.double({ min: 0, max: 40, noNaN: true })),
        ),
        { maxLength: 60 },
      ),
      async (observations) => {
        const { theirs, ours } = bothRecord(observations);
        assert.equal(await ours.metrics(), await theirs.metrics());
        // As JSON reads them (prom-client's own values carry an `exemplar: undefined` key).
        const asJson = async (registry: Registry) =>
          JSON.parse(JSON.stringify(await registry.getMetricsAsJSON()));
        assert.deepEqual(await asJson(ours), await asJson(theirs));
      },
    ),
    { numRuns: 200 },
  );
});

test('a value on a bound counts in that bucket; above the last, only in +Inf', async () => {
  const { ours } = bothRecord([
    [0, 0.005],
    [0, 31],
  ]);
  const text = await ours.metrics();
  assert.match(
    text,
    /x_seconds_bucket\{le="0.005",method="GET",route="\/api\/v1\/tasks\/:task_id",status="200"\} 1\n/,
  );
  assert.match(
    text,
    /x_seconds_bucket\{le="30",method="GET",route="\/api\/v1\/tasks\/:task_id",status="200"\} 1\n/,
  );
  assert.match(
    text,
    /x_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/v1\/tasks\/:task_id",status="200"\} 2\n/,
  );
  assert.match(
    text,
    /x_seconds_sum\{method="GET",route="\/api\/v1\/tasks\/:task_id",status="200"\} 31.005\n/,
  );
});

test('a series handed out twice is one series; reset zeroes every series', async () => {
  const { ours, histogram } = bothRecord([]);
  histogram.series(LABEL_SETS[0] as Record<string, string>).observe(1);
  histogram.series({ ...LABEL_SETS[0] }).observe(1);
  assert.match(
    await ours.metrics(),
    /x_seconds_count\{method="GET",route="\/api\/v1\/tasks\/:task_id",status="200"\} 2\n/,
  );
  ours.resetMetrics();
  assert.match(
    await ours.metrics(),
    /x_seconds_count\{method="GET",route="\/api\/v1\/tasks\/:task_id",status="200"\} 0\n/,
  );
});
