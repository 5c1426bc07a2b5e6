import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TIERS } from '../accounts/accounts-repository.js';
import { DEFAULT_MODEL_ID } from '../catalog/catalog.js';
import { loadConfig, loadDotEnv } from '../config/config.js';
import { createBlobStore, createCore } from '../core.js';
import { DomainError } from '../platform/domain-errors.js';
import { isPostgresUrl, openDatabase } from '../store/database.js';
import { migrateStore } from './migrate-store.js';
import { usageCommand } from './usage-command.js';

const USAGE = `Usage: atelier <command>

Commands:
  serve                                 start one node with the roles in ATELIER_ROLES (api, worker; default both),
                                        on the built server (built first only when missing or stale)
  accounts create --email E [--tier T] [--password P] [--json]
  accounts rotate-key --email E [--json]
  accounts set-tier --email E --tier T
  accounts set-password --email E --password P
  accounts set-upstream-key --email E [--provider P] (--key K | --key -)   (an empty key removes it)
  accounts list [--json]
  usage [--email E] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]
                                        images completed and failed per account (UTC days; default the
                                        last 30), or of one account per day and model, with its allowance
  migrate-store --to postgres://… [--storage s3://bucket[/prefix]]
                                        copy this single-node install (ATELIER_DATA_DIR) into PostgreSQL
                                        (+ S3: AWS_* and ATELIER_S3_ENDPOINT as for serve); safe to rerun
  mcp                                   MCP stdio server (env ATELIER_API_KEY, ATELIER_BASE_URL)

Tiers: ${TIERS.join(', ')}. The CLI works on ATELIER_DATA_DIR / ATELIER_DATABASE_URL, with or without the server running.`;

class UsageError extends Error {}

function options(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      tier: { type: 'string' },
      password: { type: 'string' },
      provider: { type: 'string' },
      key: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  return values;
}

function required(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

async function accountsCommand(
  sub: string | undefined,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const opts = options(args);
  loadDotEnv();
  const core = await createCore(loadConfig(), {});
  try {
    switch (sub) {
      case 'create': {
        const { account, apiKey } = await core.accounts.create({
          email: required(opts.email, 'email'),
          ...(opts.tier ? { tier: opts.tier } : {}),
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
      case 'set-tier': {
        const account = await core.accounts.requireByEmail(required(opts.email, 'email'));
        await core.accounts.setTier(account.id, required(opts.tier, 'tier'));
        out(
          opts.json
            ? JSON.stringify({ email: account.email, tier: opts.tier })
            : `${account.email} is now on tier ${opts.tier}.`,
        );
        return;
      }
      case 'set-password': {
        const account = await core.accounts.requireByEmail(required(opts.email, 'email'));
        await core.accounts.setPassword(account.id, required(opts.password, 'password'));
        out(`Password of ${account.email} updated.`);
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
              })),
            ),
          );
        } else {
          for (const r of rows)
            out(`${r.email}\t${r.tier}\t${r.apiKeyHint}\t${new Date(r.createdAt).toISOString()}`);
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
async function migrateStoreCommand(args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { to: { type: 'string' }, storage: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  const to = required(values.to, 'to');
  if (!isPostgresUrl(to)) throw new UsageError('--to must be a postgres:// URL');
  loadDotEnv();
  const sourceConfig = loadConfig();
  if (isPostgresUrl(sourceConfig.databaseUrl) || sourceConfig.storage.kind !== 'file') {
    throw new UsageError(
      'the source must be a single-node install: SQLite and file storage (ATELIER_DATA_DIR)',
    );
  }
  const targetConfig = loadConfig({
    ...process.env,
    ATELIER_DATABASE_URL: to,
    ATELIER_STORAGE: values.storage ?? 'file',
  });
  const source = await openDatabase(sourceConfig.databaseUrl);
  const target = await openDatabase(to);
  try {
    const report = await migrateStore({
      source: { db: source, config: sourceConfig },
      target: { db: target, blobs: values.storage ? createBlobStore(targetConfig) : undefined },
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

/** Runs the CLI; returns the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  try {
    if (command === 'accounts') {
      await accountsCommand(sub, rest, out);
      return 0;
    }
    if (command === 'usage') {
      loadDotEnv();
      const core = await createCore(loadConfig(), {});
      await usageCommand(core, argv.slice(1), out).finally(() => core.close(0));
      return 0;
    }
    if (command === 'migrate-store') return await migrateStoreCommand(argv.slice(1), out);
    if (command === 'mcp') {
      const { runMcpServer } = await import('../mcp/main.js');
      await runMcpServer(process.env);
      return 0;
    }
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      out(USAGE);
      return command === undefined ? 1 : 0;
    }
    throw new UsageError(`unknown command ${command}`);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`atelier: ${(error as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof DomainError) {
      process.stderr.write(`atelier: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`atelier: ${(error as Error).message}\n`);
    return 1;
  }
}
