import { mkdir, open } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AccountsRepository } from './accounts-repository.js';
import type { AccountsService } from './accounts-service.js';
import { generatePassword } from './credentials.js';

export const DEMO_EMAIL = 'demo@localhost';

/**
 * On a first start with no accounts, creates demo@localhost and returns its credentials, to be
 * written once to the data dir (`writeDemoCredentials`). Returns undefined when any account exists.
 */
export async function ensureDemoAccount(
  repository: AccountsRepository,
  accounts: AccountsService,
): Promise<{ email: string; apiKey: string; password: string } | undefined> {
  if ((await repository.count()) > 0) return undefined;
  const password = generatePassword();
  try {
    const { apiKey } = await accounts.create({ email: DEMO_EMAIL, tier: 'trial', password });
    return { email: DEMO_EMAIL, apiKey, password };
  } catch (error) {
    // Several nodes starting together on one empty database: another one created it first.
    if (await repository.findByEmail(DEMO_EMAIL)) return undefined;
    throw error;
  }
}

/** Where the demo account's credentials are written in the data dir. */
export const DEMO_CREDENTIALS_FILE = 'demo-credentials.txt';

/** The credentials file's text: the secrets and a curl for a first generation. */
function credentialsText(credentials: { email: string; apiKey: string; password: string }, baseUrl: string) {
  return [
    'Atelier demo account (created on the first start; delete this file once you have kept them)',
    `email:    ${credentials.email}`,
    `password: ${credentials.password}`,
    `API key:  ${credentials.apiKey}`,
    '',
    'Try a first generation:',
    `  curl -s ${baseUrl}/api/v1/generate \\`,
    `    -H 'Authorization: Bearer ${credentials.apiKey}' \\`,
    `    -H 'Content-Type: application/json' \\`,
    `    -d '{"prompt":"a lighthouse at dawn","aspect":"16:9","imageSize":"1K"}'`,
    `then poll: curl -s ${baseUrl}/api/v1/tasks/<task_id> -H 'Authorization: Bearer ${credentials.apiKey}'`,
    '',
  ].join('\n');
}

/**
 * Writes the demo credentials to `demo-credentials.txt` in the data dir, readable by its owner
 * only (0600 whatever the umask, also over a stale file), and returns its path. Security: the
 * secrets never go to stdout, which log shippers collect and keep.
 */
export async function writeDemoCredentials(
  dataDir: string,
  credentials: { email: string; apiKey: string; password: string },
  baseUrl: string,
): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = resolve(dataDir, DEMO_CREDENTIALS_FILE);
  const handle = await open(path, 'w', 0o600);
  try {
    await handle.chmod(0o600);
    await handle.writeFile(credentialsText(credentials, baseUrl));
  } finally {
    await handle.close();
  }
  return path;
}

/** The first-start banner: where the credentials are, never the credentials themselves. */
export function demoBanner(email: string, credentialsPath: string): string {
  return [
    '',
    `  Atelier created a demo account, ${email}. Its password, its API key and a first curl are in`,
    `    ${credentialsPath}`,
    '  (readable only by this user; keep them elsewhere and delete the file).',
    '',
  ].join('\n');
}
