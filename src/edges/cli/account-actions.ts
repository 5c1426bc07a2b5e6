import { budgetState, REDACTED } from '../../capabilities/audit/index.js';
import { DEFAULT_MODEL_ID } from '../../capabilities/catalog/index.js';
import type { Core } from '../../core.js';
import type { Config } from '../../infra/config/config.js';
import { eraseAccount, exportAccount } from './account-data-actions.js';
import { keyNamed, setBudgetCommand } from './budget-command.js';
import { accountNow, cliAudited, workingKeysNow } from './cli-audit.js';
import { requiredOption as required, UsageError } from './cli-usage.js';
import { readStdin } from './upstream-keys-command.js';

/** The options of an accounts command, as parsed. */
export interface AccountOptions {
  email?: string | undefined;
  tier?: string | undefined;
  password?: string | undefined;
  provider?: string | undefined;
  key?: string | undefined;
  json?: boolean | undefined;
  permanent?: boolean | undefined;
  /** export's file. */
  out?: string | undefined;
  /** erase's confirmation. */
  yes?: boolean | undefined;
}

/** One accounts command, its options checked, on an open core. */
export interface AccountCommand {
  sub: string;
  core: Core;
  config: Config;
  opts: AccountOptions;
  /** --tier, checked. */
  tier: string | undefined;
  /** --grace-seconds, checked. */
  graceSeconds: number | undefined;
  /** set-budget's amounts in micro-dollars (null removes one), checked. */
  budget: { daily: number | null | undefined; monthly: number | null | undefined };
  out: (line: string) => void;
}

type Needed = Array<'email' | 'tier' | 'password' | 'out'>;

/** An account as the audit log's target. */
const accountTarget = (account: { id: string }) => ({ type: 'account' as const, id: account.id });

const namedAccount = ({ core, opts }: AccountCommand) =>
  core.accounts.requireByEmail(required(opts.email, 'email'));

async function create({ core, opts, tier, out }: AccountCommand): Promise<void> {
  const { account, apiKey } = await core.accounts.create({
    email: required(opts.email, 'email'),
    ...(tier ? { tier } : {}),
    ...(opts.password !== undefined ? { password: opts.password } : {}),
  });
  const after = await accountNow(core, account.id);
  await cliAudited(core, { action: 'account.create', target: accountTarget(account), before: null, after });
  if (opts.json) out(JSON.stringify({ email: account.email, tier: account.tier, api_key: apiKey }));
  else out(`Created ${account.email} (tier ${account.tier}).\nAPI key (shown once): ${apiKey}`);
}

async function rotateKey(command: AccountCommand): Promise<void> {
  const { core, opts, out } = command;
  const account = await namedAccount(command);
  const before = await workingKeysNow(core, account.id);
  const apiKey = await core.accounts.rotateApiKey(account.id);
  const after = await workingKeysNow(core, account.id);
  await cliAudited(core, { action: 'key.rotate', target: accountTarget(account), before, after });
  if (opts.json) out(JSON.stringify({ email: account.email, tier: account.tier, api_key: apiKey }));
  else out(`New API key for ${account.email} (shown once; the old one no longer works): ${apiKey}`);
}

async function rotateWebhookSecret(command: AccountCommand): Promise<void> {
  const { core, opts, graceSeconds, out } = command;
  const account = await namedAccount(command);
  const rotated = await core.webhooks.rotateSecret(
    account.id,
    ...(graceSeconds === undefined ? [] : [graceSeconds]),
  );
  await cliAudited(core, {
    action: 'webhook-secret.rotate',
    target: accountTarget(account),
    before: null,
    after: { secret: REDACTED, previous_secret_expires_at: rotated.previousExpiresAt },
  });
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
}

async function setTier(command: AccountCommand): Promise<void> {
  const { core, opts, tier, out } = command;
  const account = await namedAccount(command);
  const newTier = required(tier, 'tier');
  const before = await accountNow(core, account.id);
  await core.accounts.setTier(account.id, newTier);
  const after = await accountNow(core, account.id);
  await cliAudited(core, { action: 'account.update', target: accountTarget(account), before, after });
  out(
    opts.json
      ? JSON.stringify({ email: account.email, tier: newTier })
      : `${account.email} is now on tier ${newTier}.`,
  );
}

async function setBudget(command: AccountCommand): Promise<void> {
  const { core, opts, budget, out } = command;
  const account = await namedAccount(command);
  const key =
    opts.key === undefined ? undefined : keyNamed(await core.accounts.listKeys(account.id), opts.key);
  const budgetNow = async () =>
    budgetState(await (key ? core.budgets.getKey(key.id) : core.budgets.get(account.id)));
  const before = await budgetNow();
  await setBudgetCommand(core, account, budget, opts.json === true, out, key);
  await cliAudited(core, {
    action: key ? 'key.budget.set' : 'budget.set',
    target: key ? { type: 'api-key', id: key.id } : accountTarget(account),
    before,
    after: await budgetNow(),
  });
}

async function setPassword(command: AccountCommand): Promise<void> {
  const { core, opts, out } = command;
  const account = await namedAccount(command);
  const password = required(opts.password, 'password');
  const before = await accountNow(core, account.id);
  await (opts.permanent
    ? core.accounts.setPassword(account.id, password)
    : core.accounts.resetPassword(account.id, password));
  const after = await accountNow(core, account.id);
  await cliAudited(core, {
    action: opts.permanent ? 'password.set' : 'password.reset',
    target: accountTarget(account),
    before: { password_change_required: before?.password_change_required ?? false },
    after: { password: REDACTED, password_change_required: after?.password_change_required ?? false },
  });
  if (opts.permanent) {
    out(`Password of ${account.email} updated.`);
  } else {
    out(`Password of ${account.email} updated; they choose their own at their next website sign-in.`);
  }
}

async function setUpstreamKey(command: AccountCommand): Promise<void> {
  const { core, opts, out } = command;
  const account = await namedAccount(command);
  const provider = opts.provider ?? core.catalog.get(DEFAULT_MODEL_ID)?.provider ?? 'local';
  const known = core.providers.get(provider);
  if (!known)
    throw new UsageError(`unknown provider ${provider} (known: ${core.providers.names().join(', ')})`);
  if (!known.requiresKey) {
    throw new UsageError(`provider ${provider} needs no key; pass --provider with a provider that does`);
  }
  if (opts.key === undefined) throw new UsageError('--key is required (use --key - to read it from stdin)');
  const key = opts.key === '-' ? await readStdin() : opts.key;
  const has = async () => ({
    provider,
    has_key: (await core.accounts.upstreamKeyProviders(account.id)).includes(provider),
  });
  const before = await has();
  await core.accounts.setUpstreamKey(account.id, provider, key);
  const after = await has();
  await cliAudited(core, {
    action: 'upstream-key.set',
    target: accountTarget(account),
    before,
    after: after.has_key ? { ...after, key: REDACTED } : after,
  });
  out(
    key.trim() === ''
      ? `Removed the ${provider} key of ${account.email}.`
      : `Stored the ${provider} key of ${account.email} (encrypted).`,
  );
}

async function disableOrEnable(command: AccountCommand): Promise<void> {
  const { core, opts, sub, out } = command;
  const account = await namedAccount(command);
  const before = await accountNow(core, account.id);
  await (sub === 'disable' ? core.accounts.disable(account.id) : core.accounts.enable(account.id));
  const after = await accountNow(core, account.id);
  await cliAudited(core, { action: 'account.update', target: accountTarget(account), before, after });
  const disabled = sub === 'disable';
  out(
    opts.json
      ? JSON.stringify({ email: account.email, disabled })
      : disabled
        ? `${account.email} is disabled: its API key is refused and its sessions have ended.`
        : `${account.email} is enabled again: its API key works; its sessions stay ended.`,
  );
}

async function list({ core, config, opts, out }: AccountCommand): Promise<void> {
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
}

/**
 * Each accounts command: the options it cannot do without (checked before anything is opened) and
 * what it does. The order is the one the usage error lists.
 */
export const ACCOUNT_ACTIONS: Record<
  string,
  { needs: Needed; run: (command: AccountCommand) => Promise<void> }
> = {
  create: { needs: ['email'], run: create },
  'rotate-key': { needs: ['email'], run: rotateKey },
  'rotate-webhook-secret': { needs: ['email'], run: rotateWebhookSecret },
  'set-tier': { needs: ['email', 'tier'], run: setTier },
  'set-password': { needs: ['email', 'password'], run: setPassword },
  'set-budget': { needs: ['email'], run: setBudget },
  'set-upstream-key': { needs: ['email'], run: setUpstreamKey },
  disable: { needs: ['email'], run: disableOrEnable },
  enable: { needs: ['email'], run: disableOrEnable },
  list: { needs: [], run: list },
  export: { needs: ['email', 'out'], run: exportAccount },
  erase: { needs: ['email'], run: eraseAccount },
};
