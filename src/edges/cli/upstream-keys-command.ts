import { parseArgs } from 'node:util';
import type { ProviderKeyView } from '../../capabilities/accounts/index.js';
import { providerKeyState, REDACTED } from '../../capabilities/audit/index.js';
import { cliAudited } from './cli-audit.js';
import { openExistingCore, requiredOption, subcommandOf, UsageError, usageExit } from './cli-usage.js';

/** The usage lines of `upstream-keys …` (part of the CLI's usage). */
export const UPSTREAM_KEYS_USAGE = `  upstream-keys add --provider P --name N (--key K | --key -) [--weight W] [--project X] [--max-in-flight N] [--json]
                                        a key of the deployment's pool for provider P, sealed in the store and
                                        never shown again (--key - reads it from stdin); tasks spread over the
                                        keys by weight (default 1) and free capacity; keys of one --project
                                        share one capacity pool (Gemini: quotas are per project)
  upstream-keys list [--provider P] [--json]
                                        every key: status (in service, disabled, invalid_key, no_quota), weight,
                                        project, limit, refusals, last error, re-check time; never the key
  upstream-keys update --provider P --name N [--key K | --key -] [--weight W] [--project X|none]
                       [--max-in-flight N|none] [--json]
  upstream-keys enable|disable|remove --provider P --name N [--json]
                                        enable also puts back a key the upstream took out; the env key
                                        (ATELIER_<PROVIDER>_API_KEY) can be disabled, not removed`;

interface CliIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (text: string) => void;
}

const COMMANDS = ['add', 'list', 'update', 'enable', 'disable', 'remove'] as const;

/** Reads a secret piped on stdin (so it stays out of the shell's history and the process list). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

function parse(args: string[]) {
  return parseArgs({
    args,
    options: {
      provider: { type: 'string' },
      name: { type: 'string' },
      key: { type: 'string' },
      weight: { type: 'string' },
      project: { type: 'string' },
      'max-in-flight': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

type Options = ReturnType<typeof parse>;

const required = (value: string | undefined, name: string) => requiredOption(value, name, true);

/** A whole-number option (`none` clears it where `clearable`); undefined when absent. */
function whole(value: string | undefined, name: string, clearable = false): number | null | undefined {
  if (value === undefined) return undefined;
  if (clearable && value === 'none') return null;
  if (!/^\d{1,6}$/.test(value.trim()))
    throw new UsageError(`--${name} must be a whole number${clearable ? ' or none' : ''}`);
  return Number(value);
}

function settingsOf(opts: Options) {
  return {
    weight: whole(opts.weight, 'weight') ?? undefined,
    project: opts.project === undefined ? undefined : opts.project === 'none' ? null : opts.project,
    maxInFlight: whole(opts['max-in-flight'], 'max-in-flight', true),
  };
}

const iso = (at: number | null) => (at === null ? '-' : new Date(at).toISOString());

function keyLine(key: ProviderKeyView): string {
  const limit = key.maxInFlight === null ? 'learned' : String(key.maxInFlight);
  const out = key.recheckAt === null ? '' : `\tre-check ${iso(key.recheckAt)}`;
  const error = key.lastError === null ? '' : `\tlast error ${iso(key.lastErrorAt)}: ${key.lastError}`;
  return `${key.provider}\t${key.name}\t${key.status}\tweight ${key.weight}\tproject ${key.project ?? '-'}\tlimit ${limit}\trefusals ${key.refusals}\t${key.source}${out}${error}`;
}

type Core = Awaited<ReturnType<typeof openExistingCore>>;

/** One change of a pool's key (add, update, enable, disable, remove), recorded in the audit log. */
async function changeAudited(
  core: Core,
  change: {
    sub: string | undefined;
    provider: string;
    name: string;
    secret: string | undefined;
    settings: ReturnType<typeof settingsOf>;
  },
  show: (key: ProviderKeyView) => void,
): Promise<void> {
  const { sub, provider, name, secret, settings } = change;
  const keys = core.keyPools.store;
  const now = async () => {
    const found = (await keys.list(provider)).find((key) => key.name === name);
    return found ? providerKeyState(found) : null;
  };
  const before = await now();
  if (sub === 'add') show(await keys.add(provider, name, secret ?? '', settings));
  else if (sub === 'update') show(await keys.update(provider, name, { ...settings, key: secret }));
  else if (sub === 'enable' || sub === 'disable')
    show(await keys.setEnabled(provider, name, sub === 'enable'));
  else await keys.remove(provider, name);
  const after = await now();
  await cliAudited(core, {
    action:
      sub === 'add' ? 'provider-key.add' : sub === 'remove' ? 'provider-key.remove' : 'provider-key.update',
    target: { type: 'provider-key', id: `${provider}/${name}` },
    before,
    after: after && secret !== undefined ? { ...after, key: REDACTED } : after,
  });
}

/** `upstream-keys add|list|update|enable|disable|remove`; returns the exit code (usage error: 2). */
export async function upstreamKeysCommand(
  sub: string | undefined,
  args: string[],
  io: CliIo,
  usage: string,
): Promise<number> {
  let opts: Options;
  let settings: ReturnType<typeof settingsOf>;
  try {
    subcommandOf('upstream-keys', sub, COMMANDS);
    opts = parse(args);
    if (sub !== 'list') {
      required(opts.provider, 'provider');
      required(opts.name, 'name');
    }
    if (sub === 'add') required(opts.key, 'key');
    settings = settingsOf(opts);
  } catch (error) {
    const exit = usageExit(error, io.err, usage);
    if (exit === undefined) throw error;
    return exit;
  }
  const core = await openExistingCore(io.env);
  const keys = core.keyPools.store;
  const show = (key: ProviderKeyView) => io.out(opts.json ? JSON.stringify(key) : keyLine(key));
  try {
    if (sub === 'list') {
      const list = await keys.list(opts.provider?.trim() || undefined);
      if (opts.json) io.out(JSON.stringify(list));
      else if (list.length === 0) io.out('No upstream keys in the pools.');
      else for (const key of list) io.out(keyLine(key));
      return 0;
    }
    const provider = core.upstreamAccess.requireKeyedProvider(required(opts.provider, 'provider'));
    const name = required(opts.name, 'name');
    const secret = opts.key === '-' ? await readStdin() : opts.key;
    await changeAudited(core, { sub, provider, name, secret, settings }, show);
    if (sub === 'remove') {
      io.out(
        opts.json
          ? JSON.stringify({ provider, name, removed: true })
          : `Removed the ${provider} key ${name}.`,
      );
    }
    return 0;
  } finally {
    await core.close(0);
  }
}
