import { parseArgs } from 'node:util';
import { TIERS } from '../accounts/accounts-repository.js';
import { DEFAULT_MODEL_ID } from '../catalog/catalog.js';
import { loadConfig, loadDotEnv } from '../config/config.js';
import { createCore } from '../core.js';
import { ApiError } from '../http/errors.js';

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

/** Runs the CLI; returns the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  try {
    if (command === 'accounts') {
      await accountsCommand(sub, rest, out);
      return 0;
    }
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
    if (error instanceof ApiError) {
      process.stderr.write(`atelier: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`atelier: ${(error as Error).message}\n`);
    return 1;
  }
}
