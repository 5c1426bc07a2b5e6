import { parseArgs } from 'node:util';
import { TIERS } from '../../base/domain/tiers.js';
import { createCore } from '../../core.js';
import { createLogger } from '../../core-resources.js';
import { loadConfig, loadDotEnv } from '../../infra/config/config.js';
import { ACCOUNT_ACTIONS } from './account-actions.js';
import { budgetOption } from './budget-command.js';
import type { CliIo } from './cli-io.js';
import { requiredOption as required, UsageError } from './cli-usage.js';
import { requireExistingDatabase } from './existing-store.js';

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
      out: { type: 'string' },
      yes: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  return values;
}

/** `atelier accounts <sub>`: its options checked before anything is opened, then run on the core. */
export async function accountsCommand(sub: string | undefined, args: string[], io: CliIo): Promise<void> {
  const action = sub !== undefined && Object.hasOwn(ACCOUNT_ACTIONS, sub) ? ACCOUNT_ACTIONS[sub] : undefined;
  if (sub === undefined || action === undefined)
    throw new UsageError(
      `unknown accounts command ${sub ?? '(none)'} (commands: ${Object.keys(ACCOUNT_ACTIONS).join(', ')})`,
    );
  const opts = options(args);
  for (const name of action.needs) required(opts[name], name);
  const tier = tierOption(opts.tier);
  const graceSeconds = graceOption(opts['grace-seconds']);
  const budget = budgetOptions(sub, opts);
  if (io.env === process.env) loadDotEnv();
  const config = loadConfig(io.env);
  // Only create starts a new install; every other command reads one that must exist.
  if (sub !== 'create') requireExistingDatabase(config, io.env);
  const core = await createCore(config, { logger: createLogger(config, 2) });
  try {
    await action.run({ sub, core, config, opts, tier, graceSeconds, budget, out: io.out });
  } finally {
    await core.close(0);
  }
}
