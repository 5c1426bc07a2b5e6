import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_CREDENTIALS_FILE, demoBanner, writeDemoCredentials } from './demo-account.js';

const credentials = {
  email: 'demo@localhost',
  apiKey: 'atl_demo-key-0123456789',
  password: 'demo-password-1',
};

test('the demo credentials go to a 0600 file (whatever the umask, over a stale file); the banner names only its path', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'atelier-demo-'));
  const umask = process.umask(0);
  try {
    const dataDir = join(parent, 'data');
    const stale = join(dataDir, DEMO_CREDENTIALS_FILE);
    await writeDemoCredentials(dataDir, credentials, 'http://localhost:8080');
    assert.equal((await stat(dataDir)).mode & 0o777, 0o700);
    await writeFile(stale, 'old', { mode: 0o644 });
    const path = await writeDemoCredentials(dataDir, credentials, 'http://localhost:8080');
    assert.equal(path, stale);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const text = await readFile(path, 'utf8');
    for (const secret of [credentials.apiKey, credentials.password]) assert.ok(text.includes(secret));
    assert.match(text, /curl -s http:\/\/localhost:8080\/api\/v1\/generate/);
    const banner = demoBanner(credentials.email, path);
    assert.ok(banner.includes(path) && banner.includes(credentials.email));
    assert.ok(!banner.includes(credentials.apiKey) && !banner.includes(credentials.password));
  } finally {
    process.umask(umask);
    await rm(parent, { recursive: true, force: true });
  }
});
