import type { AccountsRepository } from './accounts-repository.js';
import type { AccountsService } from './accounts-service.js';
import { generatePassword } from './credentials.js';

export const DEMO_EMAIL = 'demo@localhost';

/**
 * On a first start with no accounts, creates demo@localhost and returns its credentials, to be
 * printed once. Returns undefined when any account exists.
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

/** The first-start banner: credentials and a curl for a first generation. */
export function demoBanner(
  credentials: { email: string; apiKey: string; password: string },
  baseUrl: string,
): string {
  return [
    '',
    '  Atelier created a demo account (shown once — keep it):',
    `    email:    ${credentials.email}`,
    `    password: ${credentials.password}`,
    `    API key:  ${credentials.apiKey}`,
    '',
    '  Try a first generation:',
    `    curl -s ${baseUrl}/api/v1/generate \\`,
    `      -H 'Authorization: Bearer ${credentials.apiKey}' \\`,
    `      -H 'Content-Type: application/json' \\`,
    `      -d '{"prompt":"a lighthouse at dawn","aspect":"16:9","imageSize":"1K"}'`,
    `  then poll: curl -s ${baseUrl}/api/v1/tasks/<task_id> -H 'Authorization: Bearer ${credentials.apiKey}'`,
    '',
  ].join('\n');
}
