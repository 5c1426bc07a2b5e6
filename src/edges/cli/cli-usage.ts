import { createCore } from '../../core.js';
import { createLogger } from '../../core-resources.js';
import { loadConfig, loadDotEnv } from '../../infra/config/config.js';
import { requireExistingDatabase } from './existing-store.js';

/** A usage error of any command: the CLI answers with the message and the usage, and exits 2. */
export class UsageError extends Error {}

/** The value of a required `--name` option (trimmed where `trim`); a usage error when absent. */
export function requiredOption(value: string | undefined, name: string, trim = false): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return trim ? value.trim() : value;
}

/** `sub` when it is one of `commands`, else a usage error naming them. */
export function subcommandOf(family: string, sub: string | undefined, commands: readonly string[]): string {
  if (sub === undefined || !commands.includes(sub))
    throw new UsageError(`unknown ${family} command ${sub ?? '(none)'} (commands: ${commands.join(', ')})`);
  return sub;
}

/** Exit 2 with the message and the usage when `error` is a usage error (ours or parseArgs'); else undefined. */
export function usageExit(error: unknown, err: (text: string) => void, usage: string): 2 | undefined {
  if (!(error instanceof UsageError) && !(error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
    return undefined;
  err(`atelier: ${(error as Error).message}\n\n${usage}\n`);
  return 2;
}

/**
 * The core on the configured store for a command that reads or changes an existing install: the
 * caller's environment (a test's, or the process's with its .env), refusing a data dir with no database.
 */
export async function openExistingCore(env: NodeJS.ProcessEnv) {
  if (env === process.env) loadDotEnv();
  const config = loadConfig(env);
  requireExistingDatabase(config, env);
  return createCore(config, { logger: createLogger(config, 2) });
}
