import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_REQUEST_TIMEOUTS } from '../../edges/http/server-options.js';
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

test('storage: file by default; s3://bucket[/prefix] with the AWS variables and an optional endpoint', () => {
  assert.deepEqual(loadConfig({}).storage, { kind: 'file' });
  assert.equal(loadConfig({}).filesRedirect, false);
  const aws = loadConfig({
    ATELIER_STORAGE: 's3://atelier-images',
    AWS_REGION: 'eu-west-3',
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    ATELIER_FILES_REDIRECT: 'true',
  });
  assert.deepEqual(aws.storage, {
    kind: 's3',
    bucket: 'atelier-images',
    prefix: '',
    region: 'eu-west-3',
    endpoint: undefined,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
  });
  assert.equal(aws.filesRedirect, true);
  const minio = loadConfig({
    ATELIER_STORAGE: 's3://atelier/prod/images/',
    ATELIER_S3_ENDPOINT: 'http://minio:9000/',
  });
  assert.deepEqual(minio.storage, {
    kind: 's3',
    bucket: 'atelier',
    prefix: 'prod/images',
    region: 'us-east-1',
    endpoint: 'http://minio:9000',
    credentials: undefined,
  });
});

test('storage: a bad value is refused at start, naming the variable', () => {
  for (const bad of [
    'disk',
    's3://',
    's3://Bad_Bucket',
    's3://ab',
    's3://bucket/../x',
    's3://bucket/a b',
    'gs://b',
  ]) {
    assert.throws(() => loadConfig({ ATELIER_STORAGE: bad }), /ATELIER_STORAGE/, bad);
  }
  assert.throws(
    () => loadConfig({ ATELIER_STORAGE: 's3://bucket', ATELIER_S3_ENDPOINT: 'minio:9000' }),
    /ATELIER_S3_ENDPOINT/,
  );
  assert.throws(() => loadConfig({ ATELIER_STORAGE: 's3://bucket' }), /AWS_REGION/);
  assert.throws(
    () => loadConfig({ ATELIER_STORAGE: 's3://bucket', AWS_REGION: 'eu-west-3', AWS_ACCESS_KEY_ID: 'AKID' }),
    /AWS_SECRET_ACCESS_KEY/,
  );
  assert.throws(() => loadConfig({ ATELIER_FILES_REDIRECT: 'true' }), /ATELIER_FILES_REDIRECT/);
  assert.throws(() => loadConfig({ ATELIER_FILES_REDIRECT: 'yes' }), /ATELIER_FILES_REDIRECT/);
});

test('ATELIER_DATABASE_URL: a postgres:// or postgresql:// URL selects PostgreSQL; a broken one is named', () => {
  assert.equal(loadConfig({ ATELIER_DATABASE_URL: 'postgres://x@y/z' }).databaseUrl, 'postgres://x@y/z');
  assert.equal(
    loadConfig({ ATELIER_DATABASE_URL: 'postgresql://x@y:5433/z' }).databaseUrl,
    'postgresql://x@y:5433/z',
  );
  assert.throws(() => loadConfig({ ATELIER_DATABASE_URL: 'postgres://x@[y/z' }), /ATELIER_DATABASE_URL/);
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

test('request timeouts: 30 s idle, 60 s body, 5 min upload by default; the idle limit is at most 30 s', () => {
  assert.deepEqual(loadConfig({}).requestTimeouts, {
    bodyIdleMs: 30_000,
    bodyDeadlineMs: 60_000,
    uploadDeadlineMs: 300_000,
  });
  // A worker-only node (no config at hand for its /healthz app) uses the same defaults.
  assert.deepEqual(loadConfig({}).requestTimeouts, DEFAULT_REQUEST_TIMEOUTS);
  const quick = loadConfig({ ATELIER_BODY_IDLE_TIMEOUT_MS: '200', ATELIER_UPLOAD_DEADLINE_MS: '1000' });
  assert.equal(quick.requestTimeouts.bodyIdleMs, 200);
  assert.equal(quick.requestTimeouts.uploadDeadlineMs, 1000);
  assert.throws(() => loadConfig({ ATELIER_BODY_IDLE_TIMEOUT_MS: '60000' }), /ATELIER_BODY_IDLE_TIMEOUT_MS/);
});

test('numbers: a bad value says what is accepted; empty reads as the default', () => {
  for (const [name, value, accepted] of [
    ['PORT', 'eighty', /PORT: must be a whole number from 0 to 65535 \(got "eighty"\)/],
    ['PORT', '70000', /PORT: must be a whole number from 0 to 65535/],
    ['PORT', '80.5', /PORT: must be a whole number from 0 to 65535/],
    ['ATELIER_WORKER_CONCURRENCY', '0', /ATELIER_WORKER_CONCURRENCY: must be a whole number from 1 to 50000/],
    [
      'ATELIER_TASK_DEADLINE_MS',
      '10',
      /ATELIER_TASK_DEADLINE_MS: must be a whole number of milliseconds from 1000 to 86400000/,
    ],
  ] as const) {
    assert.throws(() => loadConfig({ [name]: value }), accepted, `${name}=${value}`);
  }
  assert.equal(loadConfig({ PORT: '' }).port, 8080);
  assert.equal(loadConfig({ PORT: ' 9001 ' }).port, 9001);
  assert.equal(loadConfig({ ATELIER_LOCAL_LATENCY_MS: '' }).localLatencyMs, 4000);
});

test('ATELIER_UPLOAD_ALLOWED_HOSTS: canonical entries; a malformed one is named at start', () => {
  assert.deepEqual(
    loadConfig({ ATELIER_UPLOAD_ALLOWED_HOSTS: '127.0.0.1, LocalHost:18432,[::1]' }).uploadAllowedHosts,
    ['127.0.0.1', 'localhost:18432', '[::1]'],
  );
  assert.throws(
    () => loadConfig({ ATELIER_UPLOAD_ALLOWED_HOSTS: 'localhost,http://127.0.0.1:9000' }),
    /ATELIER_UPLOAD_ALLOWED_HOSTS: invalid allowed host entry: http:\/\/127\.0\.0\.1:9000 \(expected comma-separated host or host:port/,
  );
});

test('ATELIER_OPENAI_WAIT_MS: 300 s by default, 1 ms to 10 min, anything else named', () => {
  assert.equal(loadConfig({}).openAiWaitMs, 300_000);
  assert.equal(loadConfig({ ATELIER_OPENAI_WAIT_MS: '1500' }).openAiWaitMs, 1500);
  for (const bad of ['0', '600001', 'soon', '-5']) {
    assert.throws(() => loadConfig({ ATELIER_OPENAI_WAIT_MS: bad }), /ATELIER_OPENAI_WAIT_MS/);
  }
});

test('ATELIER_CONFIG_REFRESH_MS: 2 s by default, 50 ms to 60 s, anything else named', () => {
  assert.equal(loadConfig({}).configRefreshMs, 2000);
  assert.equal(loadConfig({ ATELIER_CONFIG_REFRESH_MS: '250' }).configRefreshMs, 250);
  for (const bad of ['0', '49', '60001', '1.5', 'soon'])
    assert.throws(() => loadConfig({ ATELIER_CONFIG_REFRESH_MS: bad }), /ATELIER_CONFIG_REFRESH_MS: must be/);
});

test('resource caps (issue 25): defaults no honest caller meets; each variable read and checked', () => {
  const caps = loadConfig({}).resourceCaps;
  assert.deepEqual(caps.renditions, { concurrency: 2, queue: 32 });
  assert.deepEqual(caps.searches, { concurrency: 2, queue: 32 });
  assert.deepEqual(caps.streams, { perAccount: 200, perAddress: 1000 });
  assert.deepEqual(caps.uploadsPerDay, { count: 5000, bytes: 10 * 1024 ** 3 });
  assert.equal(caps.idempotencyKeysPerAccount, 10_000);
  const set = loadConfig({
    ATELIER_RENDITION_CONCURRENCY: '1',
    ATELIER_RENDITION_QUEUE: '0',
    ATELIER_STREAMS_PER_ACCOUNT: '5',
    ATELIER_UPLOAD_BYTES_PER_DAY: '1000',
    ATELIER_IDEMPOTENCY_KEYS_PER_ACCOUNT: '7',
  }).resourceCaps;
  assert.deepEqual(set.renditions, { concurrency: 1, queue: 0 });
  assert.equal(set.streams.perAccount, 5);
  assert.equal(set.uploadsPerDay.bytes, 1000);
  assert.equal(set.idempotencyKeysPerAccount, 7);
  assert.throws(
    () => loadConfig({ ATELIER_STREAMS_PER_ADDRESS: '0', ATELIER_SEARCH_CONCURRENCY: 'many' }),
    (error: Error) =>
      /ATELIER_STREAMS_PER_ADDRESS: must be a whole number from 1/.test(error.message) &&
      /ATELIER_SEARCH_CONCURRENCY: must be a whole number from 1 to 64/.test(error.message),
  );
});

test('ATELIER_COMFYUI_URL: comma-separated http(s) base URLs, trailing slashes dropped; anything else stops the start', () => {
  assert.deepEqual(loadConfig({}).providers.comfyui, { urls: [], maxQueue: 4 });
  const config = loadConfig({
    ATELIER_COMFYUI_URL: ' http://gpu-1:8188/ , https://gpu-2.example ',
    ATELIER_COMFYUI_MAX_QUEUE: '8',
  });
  assert.deepEqual(config.providers.comfyui, {
    urls: ['http://gpu-1:8188', 'https://gpu-2.example'],
    maxQueue: 8,
  });
  for (const bad of ['gpu-1:8188', 'ftp://gpu-1', 'http://ok:1,ws://gpu-2'])
    assert.throws(() => loadConfig({ ATELIER_COMFYUI_URL: bad }), /ATELIER_COMFYUI_URL/, bad);
  assert.throws(() => loadConfig({ ATELIER_COMFYUI_MAX_QUEUE: '0' }), /ATELIER_COMFYUI_MAX_QUEUE/);
});
