import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/infra/config/config.js';
import { realProcessEnv } from '../support/real-process-env.js';
import { type RealServer, startRealServer } from '../support/real-server.js';
import {
  dumpDatabase,
  encodingsOf,
  findSecrets,
  sqliteFilesText,
  sqlitePathOf,
} from '../support/secret-scan.js';
import { removeTestData } from '../support/test-database.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

describe('the secret scanner', () => {
  const secret = 'whsec_Zm9vYmFy+/=?& ünïcode';
  test('finds a secret in every encoding, inside longer text and at every base64 alignment', () => {
    for (const { encoding, text } of encodingsOf(secret))
      assert.notDeepEqual(findSecrets(`prefix ${text} suffix`, { secret }, 'text'), [], encoding);
    for (const pad of ['', 'a', 'ab', 'abc']) {
      for (const variant of ['base64', 'base64url'] as const) {
        const wrapped = Buffer.from(`${pad}${secret}!`).toString(variant);
        assert.notDeepEqual(findSecrets(wrapped, { secret }, 'text'), [], `${variant} after ${pad.length}`);
      }
    }
    assert.deepEqual(findSecrets('nothing to see', { secret }, 'text'), []);
  });
});

/**
 * Secrets at rest, black box: the real process, at the most verbose log level, goes through every
 * path a secret takes — an account made by the CLI with a password, sign-in (right and wrong
 * password), upstream keys set from the website and the CLI plus a deployment-wide one, the webhook
 * secret read and used to sign a delivery, an API key rotated and the old one refused — and then the
 * database file (with -wal/-shm), a dump of every table and the logs hold none of them, in plain,
 * base64, base64url, hex or URL-encoded form.
 */
describe('secrets at rest: the database file, its dump and the logs', () => {
  let env: NodeJS.ProcessEnv;
  let base: string;
  let receiver: WebhookReceiver;
  let server: RealServer | undefined;
  let logs = '';
  const secrets: Record<string, string> = {
    password: `pa ss/word+${randomBytes(6).toString('hex')}?&=`,
    wrongPassword: `wrong pass/${randomBytes(6).toString('hex')}`,
    websiteUpstreamKey: `sk-web-${randomBytes(12).toString('base64url')}`,
    cliUpstreamKey: `r8_${randomBytes(16).toString('hex')}`,
    deploymentUpstreamKey: `AIza${randomBytes(16).toString('base64url')}`,
    masterKey: randomBytes(32).toString('hex'),
  };
  const cli = (...args: string[]) =>
    run(process.execPath, ['bin/atelier.mjs', ...args], { cwd: root, env }).then((r) => r.stdout);

  before(async () => {
    receiver = await startWebhookReceiver();
    ({ env, base } = await realProcessEnv('atelier-secrets-', {
      ATELIER_UPLOAD_ALLOWED_HOSTS: receiver.host,
      ATELIER_LOCAL_LATENCY_MS: '200',
      ATELIER_GEMINI_API_KEY: secrets.deploymentUpstreamKey,
      ATELIER_MASTER_KEY: secrets.masterKey,
      LOG_LEVEL: 'trace',
    }));
  });

  after(async () => {
    await server?.kill9();
    await receiver?.close();
    if (env) await removeTestData(loadConfig(env));
  });

  test('every secret goes through the real process', async () => {
    const created = JSON.parse(
      await cli(
        'accounts',
        'create',
        '--email',
        'secrets@example.test',
        '--password',
        secrets.password ?? '',
        '--json',
      ),
    ) as { api_key: string };
    secrets.apiKey = created.api_key;
    await cli(
      'accounts',
      'set-upstream-key',
      '--email',
      'secrets@example.test',
      '--provider',
      'replicate',
      '--key',
      secrets.cliUpstreamKey ?? '',
    );
    server = await startRealServer(env, (text) => {
      logs += text;
    });
    const web = async (method: string, path: string, body?: object, cookie = '') =>
      fetch(`${base}${path}`, {
        method,
        headers: { origin: base, cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });

    const refused = await web('POST', '/web/api/session', {
      email: 'secrets@example.test',
      password: secrets.wrongPassword,
    });
    assert.equal(refused.status, 401);
    const signedIn = await web('POST', '/web/api/session', {
      email: 'secrets@example.test',
      password: secrets.password,
    });
    assert.equal(signedIn.status, 200);
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    secrets.sessionToken = cookie.split('=')[1] ?? '';
    const keySet = await web(
      'PUT',
      '/web/api/account/upstream-keys/gemini',
      { key: secrets.websiteUpstreamKey },
      cookie,
    );
    assert.equal(keySet.status, 204);
    const rotated = await web('POST', '/web/api/account/api-key', { password: secrets.password }, cookie);
    assert.equal(rotated.status, 200);
    secrets.rotatedApiKey = ((await rotated.json()) as { api_key: string }).api_key;

    const api = (path: string, key: string, body?: object) =>
      fetch(`${base}/api/v1${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    assert.equal((await api('/user/status', secrets.apiKey)).status, 401, 'the old key is refused');
    const webhookSecret = await api('/user/webhook-secret', secrets.rotatedApiKey);
    secrets.webhookSecret = ((await webhookSecret.json()) as { secret: string }).secret;
    receiver.setSecret(secrets.webhookSecret);
    const generated = await api('/generate', secrets.rotatedApiKey, {
      prompt: 'a sealed envelope',
      imageSize: '1K',
      callbackUrl: receiver.url,
    });
    assert.equal(generated.status, 200);
    await receiver.waitFor(() => receiver.received.length > 0, 60_000, 'the callback');
    assert.equal(receiver.received[0]?.verified, true, 'signed with the secret');
    assert.equal(await server.stop(), 0);
  });

  test('none of them is in the database file, its dump or the logs, in any encoding', async () => {
    assert.equal(Object.keys(secrets).length, 10, 'every secret was used');
    const url = env.ATELIER_DATABASE_URL as string;
    const dump = await dumpDatabase(url);
    const path = sqlitePathOf(url);
    const findings = [
      ...findSecrets(dump.text, secrets, 'the dump'),
      ...findSecrets(logs, secrets, 'the logs'),
      ...(path ? findSecrets(await sqliteFilesText(path), secrets, 'the database file') : []),
    ];
    assert.deepEqual(findings, []);
    // The scan looked at something: the dump holds the account, its keys and the delivery.
    for (const table of ['accounts', 'upstream_keys', 'webhook_secrets', 'webhook_deliveries', 'sessions'])
      assert.match(dump.text, new RegExp(`^${table}\\t`, 'm'), table);
    assert.match(logs, /"msg":"request completed"/, 'the logs hold every request');
  });
});
