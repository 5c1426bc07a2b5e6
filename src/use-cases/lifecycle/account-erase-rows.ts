import { type Kysely, sql } from 'kysely';
import type { Database } from '../../infra/store/schema.js';

type Trx = Kysely<Database>;

/** What an erased account's e-mail becomes in the audit log (the log itself is the operator's record). */
export const ERASED_LABEL = 'erased account';

/** Tables of the account's credentials, each keyed by `account_id` (children first). */
const CREDENTIAL_TABLES = [
  'key_budgets',
  'api_keys',
  'sessions',
  'oauth_authorizations',
  'oauth_grants',
  'upstream_keys',
  'webhook_secrets',
  'spend_confirmations',
] as const;

/**
 * Every other table with an `account_id` column (children first). A table added later with one
 * must be listed here: test/api/account-erase.test.ts looks for the account in every table.
 */
const ACCOUNT_TABLES = [
  ...CREDENTIAL_TABLES,
  'webhook_deliveries',
  'webhook_outbox',
  'webhook_callbacks',
  'collection_items',
  'collections',
  'smart_collections',
  'starred_works',
  'prompt_presets',
  'creation_views',
  'generation_counts',
  'idempotency_keys',
  'idempotency_usage',
  'upload_usage',
  'account_budgets',
  'responses',
  'mcp_answers',
  'task_turns',
  'assets',
  'tasks',
  'generations',
  'usage_daily',
] as const;

/**
 * The first step of an erase: the account is marked (`erasing_at`), disabled, its sessions' generation
 * moved, and every credential goes: API keys, sessions, OAuth grants, its upstream keys, its webhook
 * secret. Nothing can act as the account from here on.
 */
export async function removeCredentials(trx: Trx, accountId: string, now: number): Promise<void> {
  await trx
    .updateTable('accounts')
    .set((eb) => ({
      erasing_at: eb.fn.coalesce('erasing_at', sql.lit(now)),
      disabled_at: eb.fn.coalesce('disabled_at', sql.lit(now)),
      session_generation: eb('session_generation', '+', 1),
    }))
    .where('id', '=', accountId)
    .execute();
  await trx
    .deleteFrom('oauth_retired_refresh_tokens')
    .where('grant_id', 'in', (eb) =>
      eb.selectFrom('oauth_grants').select('id').where('account_id', '=', accountId),
    )
    .execute();
  for (const table of CREDENTIAL_TABLES)
    await trx.deleteFrom(table).where('account_id', '=', accountId).execute();
}

/**
 * The last step, one transaction: the account's usage is added to the anonymous totals
 * (`usage_erased`), every row keyed by it goes, the files it listed lose its id, its e-mail leaves
 * the audit log and the sign-in throttle, and its row goes.
 */
export async function eraseRemainingRows(trx: Trx, account: { id: string; email: string }): Promise<void> {
  const { id, email } = account;
  // The account's row, locked first: a node finishing the same erase waits here, then finds it gone
  // (so usage is never folded twice).
  const claimed = await trx
    .updateTable('accounts')
    .set((eb) => ({ erasing_at: eb.ref('erasing_at') }))
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) return;
  await foldUsage(trx, id);
  await removeCredentials(trx, id, 0);
  for (const table of ACCOUNT_TABLES) await trx.deleteFrom(table).where('account_id', '=', id).execute();
  await trx.updateTable('blob_purges').set({ account_id: null }).where('account_id', '=', id).execute();
  for (const table of ['alert_episodes', 'alert_deliveries'] as const)
    await trx
      .deleteFrom(table)
      .where('subject', 'like', likeEscaped(`${likeLiteral(id)}:%`))
      .execute();
  await trx
    .deleteFrom('sign_in_failures')
    .where((eb) =>
      eb.or([
        eb('key', '=', `email:${email}`),
        eb('key', 'like', likeEscaped(`address:${likeLiteral(email)}|%`)),
      ]),
    )
    .execute();
  await anonymizeAudit(trx, account);
  await trx.deleteFrom('accounts').where('id', '=', id).execute();
}

/** Adds the account's usage rows to the anonymous totals per day and model. */
async function foldUsage(trx: Trx, accountId: string): Promise<void> {
  const rows = await trx
    .selectFrom('usage_daily')
    .select(['day', 'model', 'completed', 'failed', 'cost_micros', 'absorbed_micros'])
    .where('account_id', '=', accountId)
    .execute();
  const add = (column: 'completed' | 'failed' | 'cost_micros' | 'absorbed_micros') =>
    sql<number>`${sql.ref(`usage_erased.${column}`)} + ${sql.ref(`excluded.${column}`)}`;
  for (const row of rows)
    await trx
      .insertInto('usage_erased')
      .values({
        day: row.day,
        model: row.model,
        completed: Number(row.completed),
        failed: Number(row.failed),
        cost_micros: Number(row.cost_micros),
        absorbed_micros: Number(row.absorbed_micros),
      })
      .onConflict((oc) =>
        oc.columns(['day', 'model']).doUpdateSet({
          completed: add('completed'),
          failed: add('failed'),
          cost_micros: add('cost_micros'),
          absorbed_micros: add('absorbed_micros'),
        }),
      )
      .execute();
}

/**
 * The audit log stays (what operators did, and the erase itself, keep their record under the
 * account's id), but the account's e-mail leaves it: in who acted and in every state recorded.
 */
async function anonymizeAudit(trx: Trx, { id, email }: { id: string; email: string }): Promise<void> {
  const pattern = likeEscaped(`%${likeLiteral(email)}%`);
  const replaced = (column: 'actor' | 'before_json' | 'after_json') =>
    sql<string>`replace(${sql.ref(column)}, ${email}, ${ERASED_LABEL})`;
  await trx
    .updateTable('audit_events')
    .set({
      actor: replaced('actor'),
      before_json: replaced('before_json'),
      after_json: replaced('after_json'),
    })
    .where((eb) =>
      eb.or([
        eb('actor', 'like', pattern),
        eb('before_json', 'like', pattern),
        eb('after_json', 'like', pattern),
      ]),
    )
    .execute();
  await trx
    .updateTable('audit_events')
    .set({ actor_account_id: null })
    .where('actor_account_id', '=', id)
    .execute();
}

/** `text` as a LIKE pattern matching itself (ids and e-mails may hold `_`, a LIKE wildcard). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A LIKE pattern with its escape character, the same on both stores. */
const likeEscaped = (pattern: string) => sql<string>`${pattern} escape '\\'`;
