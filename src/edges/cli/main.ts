import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TIERS } from '../../base/domain/tiers.js';
import { createBlobStore } from '../../blob-storage.js';
import { DEFAULT_MODEL_ID } from '../../capabilities/catalog/catalog.js';
import { createCore } from '../../core.js';
import { loadConfig, loadDotEnv } from '../../infra/config/config.js';
import { isPostgresUrl, openDatabase } from '../../infra/store/database.js';
import { budgetOption, keyNamed, setBudgetCommand } from './budget-command.js';
import { catalogCheckCommand } from './catalog-command.js';
import { openExistingCore, requiredOption as required, UsageError, usageExit } from './cli-usage.js';
import { requireExistingDatabase } from './existing-store.js';
import { KEYS_USAGE, keysCommand } from './keys-command.js';
import { migrateStore } from './migrate-store.js';
import { readStdin, UPSTREAM_KEYS_USAGE, upstreamKeysCommand } from './upstream-keys-command.js';
import { usageCommand } from './usage-command.js';

const USAGE = `Usage: atelier <command>

Commands:
  serve                                 start one node with the roles in ATELIER_ROLES (api, worker; default both),
                                        on the built server (built first only when missing or stale)
  accounts create --email E [--tier T] [--password P] [--json]
  accounts rotate-key --email E [--json]
  accounts rotate-webhook-secret --email E [--grace-seconds N] [--json]
                                        a new webhook signing secret; the old one keeps signing beside it
                                        for N seconds (default 86400 = 24 h; 0 stops it at once)
  accounts set-tier --email E --tier T
  accounts set-password --email E --password P [--permanent]
                                        an operator's reset: ends the account's website sessions; the next
                                        one can only set the person's own password (API keys unaffected);
                                        --permanent: the password is the person's own, no change asked
  accounts set-budget --email E [--key ID] [--daily USD] [--monthly USD] [--json]
                                        spend budgets per UTC day and month in US dollars (e.g. 25 or
                                        12.50; none removes one), of the account or of one of its API
                                        keys (--key: its key_… id or hint); generate requests that may
                                        cost more than is left are refused (402 budget_exceeded)
  accounts set-upstream-key --email E [--provider P] (--key K | --key -)   (an empty key removes it)
  accounts disable --email E [--json]   refuse the account's API key and end its sessions at once, on every node
  accounts enable --email E [--json]    let a disabled account's API key work again (it signs in anew)
  accounts list [--json]
${KEYS_USAGE}
${UPSTREAM_KEYS_USAGE}
  usage [--email E] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]
                                        images completed and failed per account (UTC days; default the
                                        last 30), or of one account per day and model, with its allowance
  migrate-store --to postgres://… [--storage s3://bucket[/prefix]]
                                        copy this single-node install (ATELIER_DATA_DIR) into PostgreSQL
                                        (+ S3: AWS_* and ATELIER_S3_ENDPOINT as for serve); safe to rerun
  catalog check [--catalog PATH] [--offline] [--days N] [--json]
                                        upstream models of the catalog near (N days, default 30) or past
                                        their shutdown, and missing from the providers' model lists (asked
                                        with the deployment keys unless --offline); exit 1 when one is gone
  mcp                                   MCP stdio server (env ATELIER_API_KEY, ATELIER_BASE_URL)

Tiers: ${TIERS.join(', ')}. The CLI works on ATELIER_DATA_DIR / ATELIER_DATABASE_URL, with or without the server running;
commands other than "accounts create" and "serve" refuse a data dir with no database.
Exit codes: 0 success, 1 failure (e.g. unknown account, no database), 2 usage error.`;

/** Where the CLI reads its settings and writes its answers (the process's own, or a test's). */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (text: string) => void;
}

/** Each accounts command and the options it cannot do without (checked before anything is opened). */
const ACCOUNT_COMMANDS: Record<string, Array<'email' | 'tier' | 'password'>> = {
  create: ['email'],
  'rotate-key': ['email'],
  'rotate-webhook-secret': ['email'],
  'set-tier': ['email', 'tier'],
  'set-password': ['email', 'password'],
  'set-budget': ['email'],
  'set-upstream-key': ['email'],
  disable: ['email'],
  enable: ['email'],
  list: [],
};

/** A --tier value, checked before anything is opened: an unknown tier is a usage error (exit 2). */
function tierOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!(TIERS as readonly string[]).includes(value))
    throw new UsageError(`unknown tier ${JSON.stringify(value)} (tiers: ${TIERS.join(', ')})`);
  return value;
}

/** A --grace-seconds value: whole seconds, else a usage error (its range is the service's to check). */
function graceOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError('--grace-seconds must be a whole number of seconds');
  return Number(value);
}

/** set-budget's amounts, checked before anything is opened (a bad amount is a usage error). */
function budgetOptions(
  sub: string | undefined,
  opts: { daily?: string | undefined; monthly?: string | undefined },
) {
  if (sub !== 'set-budget') return { daily: undefined, monthly: undefined };
  if (opts.daily === undefined && opts.monthly === undefined)
    throw new UsageError('set-budget needs --daily, --monthly or both (in US dollars; none removes one)');
  try {
    return { daily: budgetOption(opts.daily, 'daily'), monthly: budgetOption(opts.monthly, 'monthly') };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function options(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      tier: { type: 'string' },
      password: { type: 'string' },
      provider: { type: 'string' },
      key: { type: 'string' },
      'grace-seconds': { type: 'string' },
      daily: { type: 'string' },
      monthly: { type: 'string' },
      json: { type: 'boolean', default: false },
      permanent: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  return values;
}

async function accountsCommand(sub: string | undefined, args: string[], io: CliIo): Promise<void> {
  const { out } = io;
  const needed =
    sub !== undefined && Object.hasOwn(ACCOUNT_COMMANDS, sub) ? ACCOUNT_COMMANDS[sub] : undefined;
  if (needed === undefined)
    throw new UsageError(
      `unknown accounts command ${sub ?? '(none)'} (commands: ${Object.keys(ACCOUNT_COMMANDS).join(', ')})`,
    );
  const opts = options(args);
  for (const name of needed) required(opts[name], name);
  const tier = tierOption(opts.tier);
  const graceSeconds = graceOption(opts['grace-seconds']);
  const budget = budgetOptions(sub, opts);
  if (io.env === process.env) loadDotEnv();
  const config = loadConfig(io.env);
  // Only create starts a new install; every other command reads one that must exist.
  if (sub !== 'create') requireExistingDatabase(config, io.env);
  const core = await createCore(config, {});
  try {
    switch (sub) {
      case 'create': {
        const { account, apiKey } = await core.accounts.create({
          email: required(opts.email, 'email'),
          ...(tier ? { tier } : {}),
          ...(opts.password !== undefined ? { password: opts.password } : {}),
        });
        if (opts.json) out(JSON.stringify({ email: account.email, tier: account.tier, api_key: apiKey }));
        else out(`Created ${account.email} (tier ${account.tier}).\nAPI key (shown once): ${apiKey}`);
        return;
      }
      case 'rotate-key': {
        const account = await core.accounts.requireByEmail(required(opts.email, 'email'));
        const apiKey = await core.accounts.rotateApiKey(account.id);
        if (opts.json) out(JSON.stringify({ email: account.email, tier: account.tier, api_key: apiKey }));
        else out(`New API key for ${account.email} (shown once; the old one no longer works): ${apiKey}`);
        return;
      }
      case 'rotate-webhook-secret': {
        const account = await core.accounts.requireByEmail(required(opts.email, 'email'));
        const rotated = await core.webhooks.rotateSecret(
          account.id,
          ...(graceSeconds === undefined ? [] : [graceSeconds]),
        );
        const until = rotated.previousExpiresAt;
        if (opts.json)
          out(
            JSON.stringify({
              email: account.email,
              secret: rotated.secret,
              previous_secret_expires_at: until,
            }),
          );
        else
          out(
            `New webhook signing secret for ${account.email}: ${rotated.secret}\n` +
              (until === null
                ? 'The old secret no longer signs deliveries.'
                : `Deliveries carry a signature with the old secret too until ${new Date(until).toISOString()}.`),
          );
        return;
      }
      case 'set-tier': {
        const account = await core.accounts.requireByEmail(required(opts.email, 'email'));
        const newTier = required(tier, 'tier');
        await core.accounts.setTier(account.id, newTier);
        out(
          opts.json
            ? JSON.stringify({ email: account.email, tier: newTier })
            : `${account.email} is now on tier ${newTier}.`,
        );
        return;
      }
      case 'set-budget': {
        const account = await core.accounts.requireByEmail(required(opts.email, 'email'));
        const key =
          opts.key === undefined ? undefined : keyNamed(await core.accounts.listKeys(account.id), opts.key);
        await setBudgetCommand(core, account, budget, opts.json === true, out, key);
        return;
      }
      case 'set-password': {
        const account = await core.accounts.requireByEmail(required(opts.email, 'email'));
        const password = required(opts.password, 'password');
        if (opts.permanent) {
          await core.accounts.setPassword(account.id, password);
          out(`Password of ${account.email} updated.`);
        } else {
          await core.accounts.resetPassword(account.id, password);
          out(`Password of ${account.email} updated; they choose their own at their next website sign-in.`);
        }
        return;
      }
      case 'set-upstream-key': {
        const account = await core.accounts.requireByEmail(required(opts.email, 'email'));
        const provider = opts.provider ?? core.catalog.get(DEFAULT_MODEL_ID)?.provider ?? 'local';
        const known = core.providers.get(provider);
        if (!known)
          throw new UsageError(`unknown provider ${provider} (known: ${core.providers.names().join(', ')})`);
        if (!known.requiresKey) {
          throw new UsageError(
            `provider ${provider} needs no key; pass --provider with a provider that does`,
          );
        }
        if (opts.key === undefined)
          throw new UsageError('--key is required (use --key - to read it from stdin)');
        const key = opts.key === '-' ? await readStdin() : opts.key;
        await core.accounts.setUpstreamKey(account.id, provider, key);
        out(
          key.trim() === ''
            ? `Removed the ${provider} key of ${account.email}.`
            : `Stored the ${provider} key of ${account.email} (encrypted).`,
        );
        return;
      }
      case 'disable':
      case 'enable': {
        const account = await core.accounts.requireByEmail(required(opts.email, 'email'));
        await (sub === 'disable' ? core.accounts.disable(account.id) : core.accounts.enable(account.id));
        const disabled = sub === 'disable';
        out(
          opts.json
            ? JSON.stringify({ email: account.email, disabled })
            : disabled
              ? `${account.email} is disabled: its API key is refused and its sessions have ended.`
              : `${account.email} is enabled again: its API key works; its sessions stay ended.`,
        );
        return;
      }
      case 'list': {
        const rows = await core.accountsRepository.list();
        if (opts.json) {
          out(
            JSON.stringify(
              rows.map((r) => ({
                email: r.email,
                tier: r.tier,
                api_key_hint: r.apiKeyHint,
                created_at: r.createdAt,
                disabled: r.disabled === true,
              })),
            ),
          );
        } else if (rows.length === 0) {
          out(`No accounts in ${config.databaseUrl}. Create one: atelier accounts create --email E`);
        } else {
          for (const r of rows)
            out(
              `${r.email}\t${r.tier}\t${r.apiKeyHint}\t${new Date(r.createdAt).toISOString()}${r.disabled ? '\tdisabled' : ''}`,
            );
        }
        return;
      }
      default:
        throw new UsageError(`unknown accounts command ${sub ?? '(none)'}`);
    }
  } finally {
    await core.close(0);
  }
}

/** `migrate-store`: copies this install's database (and blobs, with --storage) into a cluster's stores. */
async function migrateStoreCommand(args: string[], io: CliIo): Promise<number> {
  const { out } = io;
  const { values } = parseArgs({
    args,
    options: { to: { type: 'string' }, storage: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const to = required(values.to, 'to');
  if (!isPostgresUrl(to)) throw new UsageError('--to must be a postgres:// URL');
  if (io.env === process.env) loadDotEnv();
  const sourceConfig = loadConfig(io.env);
  if (isPostgresUrl(sourceConfig.databaseUrl) || sourceConfig.storage.kind !== 'file') {
    throw new UsageError(
      'the source must be a single-node install: SQLite and file storage (ATELIER_DATA_DIR)',
    );
  }
  requireExistingDatabase(sourceConfig, io.env);
  const targetConfig = loadConfig({
    ...io.env,
    ATELIER_DATABASE_URL: to,
    ATELIER_STORAGE: values.storage ?? 'file',
  });
  const source = await openDatabase(sourceConfig.databaseUrl);
  const target = await openDatabase(to);
  try {
    const report = await migrateStore({
      source: { db: source, config: sourceConfig },
      target: { db: target, blobs: values.storage ? await createBlobStore(targetConfig) : undefined },
      progress: out,
    });
    if (!values.storage) out('blobs: not copied (no --storage); they stay under this data dir');
    out(
      `Every node of the cluster needs this install's master key (it seals upstream keys): set ` +
        `ATELIER_MASTER_KEY to the contents of ${join(sourceConfig.dataDir, 'master.key')}, and keep ` +
        'ATELIER_PUBLIC_BASE_URL as it was (result URLs are stored with it).',
    );
    out(report.complete ? 'migrate-store: complete' : 'migrate-store: INCOMPLETE (see the counts above)');
    return report.complete ? 0 : 1;
  } finally {
    await source.destroy();
    await target.destroy();
  }
}

const processIo: CliIo = {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (text) => process.stderr.write(text),
};

/** Runs the CLI; returns the process exit code (0 success, 1 failure, 2 usage error). */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command, sub, ...rest] = argv;
  try {
    if (command === 'keys' || (command === 'accounts' && sub === 'set-operator'))
      return await keysCommand(command, sub, rest, io, USAGE);
    if (command === 'upstream-keys') return await upstreamKeysCommand(sub, rest, io, USAGE);
    if (command === 'accounts') {
      await accountsCommand(sub, rest, io);
      return 0;
    }
    if (command === 'usage') {
      const core = await openExistingCore(io.env);
      await usageCommand(core, argv.slice(1), io.out).finally(() => core.close(0));
      return 0;
    }
    if (command === 'migrate-store') return await migrateStoreCommand(argv.slice(1), io);
    if (command === 'catalog') {
      if (sub !== 'check') throw new UsageError(`unknown catalog command ${sub ?? '(none)'}`);
      if (io.env === process.env) loadDotEnv();
      return await catalogCheckCommand(loadConfig(io.env), rest, io.out);
    }
    if (command === 'help' || command === '--help' || command === '-h') {
      io.out(USAGE);
      return 0;
    }
    throw new UsageError(command === undefined ? 'no command given' : `unknown command ${command}`);
  } catch (error) {
    const exit = usageExit(error, io.err, USAGE);
    if (exit !== undefined) return exit;
    // Domain errors (unknown account…), NoDatabase and the rest: the message, exit 1.
    io.err(`atelier: ${(error as Error).message}\n`);
    return 1;
  }
}
