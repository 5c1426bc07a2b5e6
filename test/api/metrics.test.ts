import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { buildHealthApp } from '../../src/edges/api/health-routes.js';
import { bearer, pollUntilFinal } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/** Prometheus text → sample lines as `name{labels}` → value (labels as prom-client writes them). */
function parseSamples(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    samples.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return samples;
}

/** The sum of every sample of `name` whose labels include all of `labels`. */
function total(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [key, value] of samples) {
    if (key !== name && !key.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([label, v]) => key.includes(`${label}="${v}"`))) sum += value;
  }
  return sum;
}

describe('GET /metrics', () => {
  let t: TestApp;
  let apiKey: string;
  const token = 'metrics-token-0123456789';

  before(async () => {
    t = await createTestApp({ env: { ATELIER_METRICS_TOKEN: token } });
    ({ apiKey } = await t.createAccount('metrics@example.test'));
  });
  after(() => t.close());

  const scrape = async () => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(token) });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(String(response.headers['content-type']), /^text\/plain/);
    return response.body;
  };

  test('asks for the token when one is set, in the error shape', async () => {
    for (const headers of [{}, bearer('metrics-token-wrong-000000'), bearer(apiKey)]) {
      const response = await t.app.inject({ method: 'GET', url: '/metrics', headers });
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error.type, 'unauthorized');
    }
  });

  test('compares the token whole: a prefix, an extension or another case of it is refused', async () => {
    for (const given of [token.slice(0, -1), `${token}0`, token.toUpperCase(), `${token} extra`]) {
      const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(given) });
      assert.equal(response.statusCode, 401, given);
    }
    const lowerScheme = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `bearer ${token}` },
    });
    assert.equal(lowerScheme.statusCode, 200);
  });

  test('after a run of tasks the counts match what happened, with no ids or emails in labels', async () => {
    const generate = (prompt: string, count: number) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/generate',
        headers: bearer(apiKey),
        payload: { prompt, count, imageSize: '1K' },
      });
    const ok = (await generate('three lighthouses', 3)).json().task_ids as string[];
    const failing = (await generate('a refusal [[fail]]', 1)).json().task_ids as string[];
    const records = await Promise.all(
      [...ok, ...failing].map(async (id) => (await pollUntilFinal(t.app, apiKey, id)).final),
    );
    assert.deepEqual(
      records.map((r) => r.status),
      ['completed', 'completed', 'completed', 'failed'],
    );

    // No route answers POST /no-such-route (the website's pages are GET only).
    await t.app.inject({ method: 'POST', url: '/no-such-route', headers: bearer(apiKey) });
    await t.app.inject({ method: 'GET', url: '/api/v1/tasks/tsk_unknown', headers: bearer(apiKey) });

    const text = await scrape();
    const samples = parseSamples(text);
    // Each request under its route's template; no route matched is `unmatched`.
    const requests = (labels: Record<string, string>) =>
      total(samples, 'atelier_http_request_duration_seconds_count', labels);
    assert.equal(requests({ method: 'POST', route: 'unmatched', status: '404' }), 1);
    assert.equal(requests({ method: 'GET', route: '/api/v1/tasks/:task_id', status: '404' }), 1);
    assert.ok(requests({ method: 'GET', route: '/api/v1/tasks/:task_id', status: '200' }) >= 4);
    assert.equal(
      total(samples, 'atelier_tasks_finished_total', { provider: 'local', status: 'completed' }),
      3,
    );
    assert.equal(total(samples, 'atelier_tasks_finished_total', { provider: 'local', status: 'failed' }), 1);
    assert.equal(total(samples, 'atelier_task_duration_seconds_count', { provider: 'local' }), 4);
    assert.equal(total(samples, 'atelier_task_queued_seconds_count', { provider: 'local' }), 4);
    assert.equal(
      total(samples, 'atelier_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/v1/generate',
        status: '200',
      }),
      2,
    );
    // Every result's bytes went to blob storage once.
    const resultBytes = records.reduce((sum, r) => sum + (r.bytes ?? 0), 0);
    assert.ok(resultBytes > 0);
    assert.equal(total(samples, 'atelier_blob_bytes_written_total', { prefix: 'results' }), resultBytes);
    assert.ok(
      total(samples, 'atelier_upstream_call_duration_seconds_count', { provider: 'local', outcome: 'ok' }) >=
        4,
    );
    assert.equal(total(samples, 'atelier_upstream_call_duration_seconds_count', { outcome: 'failed' }), 1);
    assert.equal(total(samples, 'atelier_queue_depth'), 0);
    assert.equal(total(samples, 'atelier_queue_oldest_due_seconds'), 0);
    assert.equal(total(samples, 'atelier_event_streams'), 0);
    assert.ok(samples.has('atelier_upstream_circuit_open{provider="gemini"}'));
    // Low cardinality: no task or generation id, no email, no raw URL in any label.
    assert.doesNotMatch(text, /tsk_|gen_|@example\.test|\/api\/v1\/tasks\/tsk/);
  });

  test('is off without ATELIER_METRICS_TOKEN (404 in the error shape), on the api app and a worker-only node', async () => {
    const open = await createTestApp({ startEngine: false });
    const health = await buildHealthApp({
      db: open.core.resources.db,
      roles: ['worker'],
      logger: open.core.logger as FastifyBaseLogger,
      metrics: open.core.metrics,
    });
    try {
      for (const app of [open.app, health]) {
        const response = await app.inject({ method: 'GET', url: '/metrics' });
        assert.equal(response.statusCode, 404);
        assert.equal(response.json().error.type, 'not_found');
        assert.match(response.json().error.message, /ATELIER_METRICS_TOKEN/);
        assert.doesNotMatch(response.body, /atelier_/);
      }
    } finally {
      await health.close();
      await open.close();
    }
  });

  test("a worker-only node's app serves it too", async () => {
    const health = await buildHealthApp({
      db: t.core.resources.db,
      roles: ['worker'],
      logger: t.core.logger as FastifyBaseLogger,
      metrics: t.core.metrics,
      metricsToken: token,
    });
    try {
      const response = await health.inject({ method: 'GET', url: '/metrics', headers: bearer(token) });
      assert.equal(response.statusCode, 200);
      assert.match(response.body, /^atelier_queue_depth \d+$/m);
      assert.equal((await health.inject({ method: 'GET', url: '/metrics' })).statusCode, 401);
    } finally {
      await health.close();
    }
  });

  test('every metric the sample Grafana dashboard and docs/operations.md name is one this node serves', async () => {
    const text = await scrape();
    const served = new Set([...text.matchAll(/^# TYPE (atelier_\w+)/gm)].map((m) => m[1]));
    const named = (file: string) =>
      new Set(
        [
          ...readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8').matchAll(
            /atelier_[a-z_]+[a-z]/g,
          ),
        ]
          .map((m) => m[0].replace(/_(bucket|count|sum)$/, ''))
          .filter((name) => !name.endsWith('_')),
      );
    for (const file of ['grafana/atelier-dashboard.json', 'operations.md']) {
      const unknown = [...named(file)].filter(
        (name) => !served.has(name) && !/^atelier_(process|nodejs)$/.test(name),
      );
      assert.deepEqual(unknown, [], `${file} names metrics that do not exist`);
    }
  });
});
