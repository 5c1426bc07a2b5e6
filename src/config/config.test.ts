import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from './config.js';

test('defaults: port 8080, ./data, SQLite file in the data dir, both roles', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.dataDir, resolve('./data'));
  assert.equal(config.databaseUrl, resolve('./data/atelier.db'));
  assert.equal(config.publicBaseUrl, 'http://localhost:8080');
  assert.deepEqual(config.roles, { api: true, worker: true });
  assert.equal(config.localLatencyMs, 4000);
  assert.deepEqual(config.uploadAllowedHosts, []);
});

test('reads every variable and trims lists', () => {
  const config = loadConfig({
    PORT: '9000',
    ATELIER_DATA_DIR: '/tmp/x',
    ATELIER_PUBLIC_BASE_URL: 'https://img.example.com/',
    ATELIER_UPLOAD_ALLOWED_HOSTS: ' 127.0.0.1:9999 , Example.test ',
    ATELIER_ROLES: 'worker',
    ATELIER_LOCAL_LATENCY_MS: '0',
  });
  assert.equal(config.port, 9000);
  assert.equal(config.publicBaseUrl, 'https://img.example.com');
  assert.deepEqual(config.uploadAllowedHosts, ['127.0.0.1:9999', 'example.test']);
  assert.deepEqual(config.roles, { api: false, worker: true });
  assert.equal(config.localLatencyMs, 0);
});

test('names every bad variable at once', () => {
  assert.throws(
    () =>
      loadConfig({
        PORT: 'eighty',
        ATELIER_ROLES: 'api,cook',
        ATELIER_PUBLIC_BASE_URL: 'ftp://x',
        LOG_LEVEL: 'loud',
      }),
    (error: Error) => {
      for (const name of ['PORT', 'ATELIER_ROLES', 'ATELIER_PUBLIC_BASE_URL', 'LOG_LEVEL']) {
        assert.match(error.message, new RegExp(name));
      }
      return true;
    },
  );
});

test('refuses storage and database kinds this build does not have, with a clear message', () => {
  assert.throws(() => loadConfig({ ATELIER_STORAGE: 's3://bucket' }), /ATELIER_STORAGE/);
  assert.throws(() => loadConfig({ ATELIER_DATABASE_URL: 'postgres://x@y/z' }), /ATELIER_DATABASE_URL/);
});

test('webhook retry schedule: the Standard Webhooks default, or a comma-separated list in ms', () => {
  assert.deepEqual(
    loadConfig({}).webhookRetryScheduleMs,
    [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  );
  assert.deepEqual(
    loadConfig({ ATELIER_WEBHOOK_RETRY_SCHEDULE_MS: ' 0, 50 ,200' }).webhookRetryScheduleMs,
    [0, 50, 200],
  );
  for (const bad of ['0,,5', 'soon', '-5', '0,1.5']) {
    assert.throws(
      () => loadConfig({ ATELIER_WEBHOOK_RETRY_SCHEDULE_MS: bad }),
      /ATELIER_WEBHOOK_RETRY_SCHEDULE_MS/,
    );
  }
});
