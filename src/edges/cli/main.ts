import { loadConfig, loadDotEnv } from '../../infra/config/config.js';
import { accountsCommand } from './accounts-command.js';
import { catalogCheckCommand, catalogStoreCommand } from './catalog-command.js';
import { type CliIo, processIo } from './cli-io.js';
import { openExistingCore, UsageError, usageExit } from './cli-usage.js';
import { keysCommand } from './keys-command.js';
import { migrateStoreCommand } from './migrate-store-command.js';
import { upstreamKeysCommand } from './upstream-keys-command.js';
import { usageCommand } from './usage-command.js';
import { USAGE } from './usage-text.js';

export type { CliIo } from './cli-io.js';

/** What a command is given: the words after it (`sub` the first of them, `rest` the others). */
interface Invocation {
  sub: string | undefined;
  rest: string[];
  /** Every word after the command, `sub` included. */
  args: string[];
  io: CliIo;
}

/** One command group: runs and answers the exit code. */
type Command = (invocation: Invocation) => Promise<number>;

async function accounts({ sub, rest, io }: Invocation): Promise<number> {
  if (sub === 'set-operator') return keysCommand('accounts', sub, rest, io, USAGE);
  await accountsCommand(sub, rest, io);
  return 0;
}

async function usage({ args, io }: Invocation): Promise<number> {
  const core = await openExistingCore(io.env);
  await usageCommand(core, args, io.out).finally(() => core.close(0));
  return 0;
}

async function catalog({ sub, rest, io }: Invocation): Promise<number> {
  if (sub === 'show' || sub === 'import') {
    const core = await openExistingCore(io.env);
    return catalogStoreCommand(core, sub, rest, io.out).finally(() => core.close(0));
  }
  if (sub !== 'check') throw new UsageError(`unknown catalog command ${sub ?? '(none)'}`);
  if (io.env === process.env) loadDotEnv();
  return catalogCheckCommand(loadConfig(io.env), rest, io.out);
}

async function help({ io }: Invocation): Promise<number> {
  io.out(USAGE);
  return 0;
}

/** Each command group and where it is handled. */
const COMMANDS: Record<string, Command> = {
  keys: ({ sub, rest, io }) => keysCommand('keys', sub, rest, io, USAGE),
  'upstream-keys': ({ sub, rest, io }) => upstreamKeysCommand(sub, rest, io, USAGE),
  accounts,
  usage,
  'migrate-store': ({ args, io }) => migrateStoreCommand(args, io),
  catalog,
  help,
  '--help': help,
  '-h': help,
};

/** Runs the CLI; returns the process exit code (0 success, 1 failure, 2 usage error). */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command, sub, ...rest] = argv;
  try {
    const run = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (run === undefined)
      throw new UsageError(command === undefined ? 'no command given' : `unknown command ${command}`);
    return await run({ sub, rest, args: argv.slice(1), io });
  } catch (error) {
    const exit = usageExit(error, io.err, USAGE);
    if (exit !== undefined) return exit;
    // Domain errors (unknown account…), NoDatabase and the rest: the message, exit 1.
    io.err(`atelier: ${(error as Error).message}\n`);
    return 1;
  }
}
