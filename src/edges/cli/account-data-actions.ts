import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Core } from '../../core.js';
import { cliAudited } from './cli-audit.js';
import { requiredOption as required, UsageError } from './cli-usage.js';

/** What export and erase use of an accounts command (account-actions.ts). */
interface AccountCommand {
  core: Core;
  opts: {
    email?: string | undefined;
    out?: string | undefined;
    yes?: boolean | undefined;
    json?: boolean | undefined;
  };
  out: (line: string) => void;
}

/** `accounts export --email E --out FILE`: the account's works and uploads as a ZIP file. */
export async function exportAccount({ core, opts, out }: AccountCommand): Promise<void> {
  const account = await core.accounts.requireByEmail(required(opts.email, 'email'));
  const file = required(opts.out, 'out');
  const zip = await core.accountExport.open(account.id, core.clock.now());
  // Written beside the file, then renamed: a file at --out is always a whole archive.
  const partial = `${file}.partial`;
  try {
    await pipeline(zip.stream, createWriteStream(partial));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  await cliAudited(core, {
    action: 'account.export',
    target: { type: 'account', id: account.id },
    before: null,
    after: null,
  });
  out(
    opts.json
      ? JSON.stringify({ email: account.email, file })
      : `Exported the works and uploads of ${account.email} to ${file}.`,
  );
}

/** `accounts erase --email E --yes`: every row of the account goes; its files at the next lifecycle run. */
export async function eraseAccount({ core, opts, out }: AccountCommand): Promise<void> {
  const email = required(opts.email, 'email');
  if (opts.yes !== true)
    throw new UsageError(`erase removes ${email} and everything of it for good; add --yes to go ahead`);
  const account = await core.accounts.requireByEmail(email);
  const outcome = await core.lifecycle.eraseAccount(account.id);
  const status = outcome === 'pending' ? 'pending' : 'erased';
  await cliAudited(core, {
    action: 'account.erase',
    target: { type: 'account', id: account.id },
    before: { tier: account.tier },
    after: { status },
  });
  if (opts.json) out(JSON.stringify({ id: account.id, status }));
  else if (status === 'pending')
    out(
      `Erasing account ${account.id}: its credentials are gone; a task of it was still running, and the lifecycle housekeeping finishes the erase.`,
    );
  else
    out(
      `Erased account ${account.id}: no row of it remains; its files leave storage at the next lifecycle run.`,
    );
}
