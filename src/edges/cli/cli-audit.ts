import { userInfo } from 'node:os';
import type { AuditActor, AuditChange } from '../../capabilities/audit/index.js';
import { accountState, apiKeyState } from '../../capabilities/audit/index.js';
import type { Core } from '../../core.js';

/** The OS user running the CLI (from the system, else $USER), `unknown` when neither says. */
function osUser(env: NodeJS.ProcessEnv): string {
  try {
    return userInfo().username;
  } catch {
    return env.USER?.trim() || env.USERNAME?.trim() || 'unknown';
  }
}

/** Who a CLI change is recorded as: `cli:<OS user>`, from the CLI, with no request. */
export const cliActor = (env: NodeJS.ProcessEnv = process.env): AuditActor => ({
  label: `cli:${osUser(env)}`,
  accountId: null,
  source: 'cli',
  requestId: null,
});

/**
 * Records a change a CLI command made, right after it was committed (the services keep their own
 * transactions), in the store's audit log beside the admin API's.
 */
export async function cliAudited(core: Pick<Core, 'audit'>, change: AuditChange): Promise<void> {
  await core.audit.record(cliActor(), change);
}

/** The account's state as the log records it (its directory entry). */
export async function accountNow(core: Pick<Core, 'accountDirectory'>, accountId: string) {
  const entry = await core.accountDirectory.entry(accountId);
  return entry ? accountState(entry) : null;
}

/** The account's working API keys as the log records them (hints, never keys). */
export async function workingKeysNow(core: Pick<Core, 'accounts'>, accountId: string) {
  return { keys: (await core.accounts.listKeys(accountId)).map(apiKeyState) };
}
