import { parseArgs } from 'node:util';
import { apiKeyFields } from '../../capabilities/accounts/index.js';
import { apiKeyState, keyRetentionState } from '../../capabilities/audit/index.js';
import type { Core } from '../../core.js';
import { accountNow, cliAudited } from './cli-audit.js';
import {
  openExistingCore,
  requiredOption as required,
  subcommandOf,
  UsageError,
  usageExit,
} from './cli-usage.js';

/** The usage lines of `keys …` and `accounts set-operator` (part of the CLI's usage). */
export const KEYS_USAGE = `  accounts set-operator --email E [--off] [--json]
                                        make the account an operator (the operator console), or not (--off)
  keys create --email E --name N [--scope full|read] [--expires-in 30d | --expires-at ISO] [--json]
                                        a new API key, shown once (scope read: polls, history, status and
                                        usage only); --expires-in takes s, m, h or d
  keys list --email E [--all] [--json]  the account's keys (id, name, scope, hint, times); --all adds revoked ones
  keys revoke --email E --key <id or hint>
                                        the key stops working at once, on every node
  keys set-retention --email E --key <id or hint> [--results-days N|none] [--zero-retention on|off] [--json]
                                        days the key's works are kept (none: the account's), and whether
                                        the key stores nothing (its images go once fetched)`;

/** A key as the accounts service lists it. */
type ApiKey = Awaited<ReturnType<Core['accounts']['listKeys']>>[number];

/** Where the CLI reads its settings and writes its answers (main.ts's CliIo). */
interface CliIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (text: string) => void;
}

const KEYS_COMMANDS = ['create', 'list', 'revoke', 'set-retention'] as const;

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** --expires-in (`30d`, `12h`, `90m`, `3600s`) or --expires-at (an ISO 8601 time) → epoch ms; null for neither. */
export function expiryOption(
  expiresIn: string | undefined,
  expiresAt: string | undefined,
  now: number,
): number | null {
  if (expiresIn !== undefined && expiresAt !== undefined)
    throw new UsageError('give --expires-in or --expires-at, not both');
  if (expiresIn !== undefined) {
    const match = /^(\d{1,6})([smhd])$/.exec(expiresIn.trim());
    if (!match || Number(match[1]) === 0)
      throw new UsageError('--expires-in must be a positive number and a unit: 3600s, 90m, 12h or 30d');
    return now + Number(match[1]) * (UNITS[match[2] as string] as number);
  }
  if (expiresAt !== undefined) {
    const at = /^\d{4}-\d{2}-\d{2}/.test(expiresAt.trim()) ? Date.parse(expiresAt.trim()) : Number.NaN;
    if (Number.isNaN(at))
      throw new UsageError('--expires-at must be an ISO 8601 time, e.g. 2026-12-31T23:59:59Z');
    return at;
  }
  return null;
}

const iso = (at: number | null) => (at === null ? '-' : new Date(at).toISOString());

/** A key as `--json` prints it: the API's fields (times in epoch ms), its account and revocation. */
function keyJson(email: string, key: ApiKey) {
  const { id, ...fields } = apiKeyFields(key);
  // id, then email: the order --json has always printed.
  return { id, email, ...fields, revoked_at: key.revokedAt };
}

function keyLine(key: ApiKey): string {
  const state = key.revokedAt !== null ? `\trevoked ${iso(key.revokedAt)}` : '';
  return `${key.id}\t${key.name}\t${key.scope}\t${key.hint}\tcreated ${iso(key.createdAt)}\tlast used ${iso(key.lastUsedAt)}\texpires ${iso(key.expiresAt)}${state}`;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      scope: { type: 'string' },
      'expires-in': { type: 'string' },
      'expires-at': { type: 'string' },
      key: { type: 'string' },
      'results-days': { type: 'string' },
      'zero-retention': { type: 'string' },
      all: { type: 'boolean', default: false },
      off: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

type Options = ReturnType<typeof parse>;

/** Checks what can be checked before anything is opened (a usage error exits 2). */
function check(command: string, sub: string | undefined, opts: Options, now: number) {
  if (command === 'accounts') {
    required(opts.email, 'email');
    return { expiresAt: null };
  }
  subcommandOf('keys', sub, KEYS_COMMANDS);
  required(opts.email, 'email');
  if (sub === 'create') {
    required(opts.name, 'name');
    if (opts.scope !== undefined && opts.scope !== 'full' && opts.scope !== 'read')
      throw new UsageError(`--scope must be full or read, not ${JSON.stringify(opts.scope)}`);
  }
  if (sub === 'revoke' || sub === 'set-retention') required(opts.key, 'key');
  if (sub === 'set-retention') retentionOptions(opts);
  return { expiresAt: sub === 'create' ? expiryOption(opts['expires-in'], opts['expires-at'], now) : null };
}

/** --results-days (a number, or none) and --zero-retention (on or off) as a key's retention change. */
function retentionOptions(opts: Options): { resultsRetentionDays?: number | null; zeroRetention?: boolean } {
  const days = opts['results-days']?.trim();
  const zero = opts['zero-retention']?.trim();
  if (days === undefined && zero === undefined)
    throw new UsageError('give --results-days N|none, --zero-retention on|off, or both');
  if (days !== undefined && days !== 'none' && !/^\d{1,5}$/.test(days))
    throw new UsageError('--results-days must be a whole number of days (1 to 36500) or none');
  if (zero !== undefined && zero !== 'on' && zero !== 'off')
    throw new UsageError('--zero-retention must be on or off');
  return {
    ...(days === undefined ? {} : { resultsRetentionDays: days === 'none' ? null : Number(days) }),
    ...(zero === undefined ? {} : { zeroRetention: zero === 'on' }),
  };
}

/** Sets the key's retention (its id or hint) and records the change. */
async function setRetentionAudited(
  core: Core,
  accountId: string,
  ref: string,
  opts: Options,
): Promise<ApiKey> {
  const wanted = ref.trim();
  const before = (await core.accounts.listKeys(accountId)).find(
    (one) => one.id === wanted || one.hint === wanted || one.hint === `${wanted}…`,
  );
  if (!before) throw new Error(`no working key ${wanted} on this account`);
  const key = await core.accounts.setKeyRetention(accountId, before.id, retentionOptions(opts));
  await cliAudited(core, {
    action: 'key.retention.set',
    target: { type: 'api-key', id: key.id },
    before: keyRetentionState(before),
    after: keyRetentionState(key),
  });
  return key;
}

/** Revokes the key (its id or hint) and records the change. */
async function revokeAudited(core: Core, accountId: string, ref: string): Promise<ApiKey> {
  const working = await core.accounts.listKeys(accountId);
  const key = await core.accounts.revokeKey(accountId, ref);
  const before = working.find((one) => one.id === key.id);
  await cliAudited(core, {
    action: 'key.revoke',
    target: { type: 'api-key', id: key.id },
    before: before ? apiKeyState(before) : null,
    after: apiKeyState(key),
  });
  return key;
}

/**
 * `keys create|list|revoke` and `accounts set-operator`; returns the exit code (a usage error: 2,
 * with the usage; a failure such as an unknown account is thrown, for the CLI's exit 1).
 */
export async function keysCommand(
  command: 'keys' | 'accounts',
  sub: string | undefined,
  args: string[],
  io: CliIo,
  usage: string,
): Promise<number> {
  let opts: Options;
  let expiresAt: number | null;
  try {
    opts = parse(args);
    ({ expiresAt } = check(command, sub, opts, Date.now()));
  } catch (error) {
    const exit = usageExit(error, io.err, usage);
    if (exit === undefined) throw error;
    return exit;
  }
  const core = await openExistingCore(io.env);
  const { out } = io;
  try {
    const account = await core.accounts.requireByEmail(required(opts.email, 'email'));
    if (command === 'accounts') {
      const operator = !opts.off;
      const before = await accountNow(core, account.id);
      await core.accounts.setOperator(account.id, operator);
      const target = { type: 'account' as const, id: account.id };
      const after = await accountNow(core, account.id);
      await cliAudited(core, { action: 'account.set-operator', target, before, after });
      out(
        opts.json
          ? JSON.stringify({ email: account.email, operator })
          : `${account.email} is ${operator ? 'now an operator' : 'no longer an operator'}.`,
      );
    } else if (sub === 'create') {
      const { key, apiKey } = await core.accounts.createKey(account.id, {
        name: required(opts.name, 'name'),
        scope: opts.scope,
        expiresAt,
      });
      const target = { type: 'api-key' as const, id: key.id };
      await cliAudited(core, { action: 'key.create', target, before: null, after: apiKeyState(key) });
      if (opts.json) out(JSON.stringify({ ...keyJson(account.email, key), api_key: apiKey }));
      else
        out(
          `Created key ${key.name} (${key.id}, scope ${key.scope}, expires ${iso(key.expiresAt)}) for ${account.email}.\n` +
            `API key (shown once): ${apiKey}`,
        );
    } else if (sub === 'list') {
      const keys = await core.accounts.listKeys(account.id, { includeRevoked: opts.all });
      if (opts.json) out(JSON.stringify(keys.map((key) => keyJson(account.email, key))));
      else if (keys.length === 0) out(`${account.email} has no working keys.`);
      else for (const key of keys) out(keyLine(key));
    } else if (sub === 'set-retention') {
      const key = await setRetentionAudited(core, account.id, required(opts.key, 'key'), opts);
      const days = key.resultsRetentionDays === null ? "the account's" : `${key.resultsRetentionDays} days`;
      out(
        opts.json
          ? JSON.stringify(keyJson(account.email, key))
          : `Key ${key.name} (${key.id}) of ${account.email}: results kept ${days}; zero-retention ${key.zeroRetention ? 'on' : 'off'}.`,
      );
    } else {
      const key = await revokeAudited(core, account.id, required(opts.key, 'key'));
      out(
        opts.json
          ? JSON.stringify(keyJson(account.email, key))
          : `Revoked key ${key.name} (${key.id}, ${key.hint}) of ${account.email}: it no longer works.`,
      );
    }
    return 0;
  } finally {
    await core.close(0);
  }
}
