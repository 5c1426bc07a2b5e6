import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Kysely, sql } from 'kysely';
import { formatUsd } from '../../src/base/domain/money.js';
import { gptImageOutputTokens } from '../../src/capabilities/catalog/gpt-image-tokens.js';
import { dialectOf } from '../../src/infra/store/database.js';
import { migrateToLatest } from '../../src/infra/store/migrate.js';
import {
  type FakeOpenAI,
  OVERBILLED_TEXT_TOKENS,
  overbilledUsageOf,
  startFakeOpenAI,
} from '../fakes/providers/fake-openai.js';
import { bearer, pollUntilFinal } from '../support/api-helpers.js';
import { cli } from '../support/cli.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { ADMIN, operatorAndUser, requests } from './admin-support.js';

/**
 * Issue 41: what a quote absorbs is visible where operators look at money. The fake OpenAI bills
 * twice the output tokens its formula gives at high quality (more than any quote's maximum), so a
 * generate under a quote is charged the quote's maximum and the rest is absorbed: the usage rollup
 * counts it per day and model, the console's usage answers and `atelier usage` show it beside the
 * spend, and the account's own report does not.
 */
const UPSTREAM_KEY = 'sk-upstream-absorbed';

describe('absorbed amounts: the usage rollup, the console API and the CLI', () => {
  let t: TestApp;
  let fake: FakeOpenAI;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;
  let r: ReturnType<typeof requests>;

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: UPSTREAM_KEY, usage: overbilledUsageOf });
    t = await createTestApp({
      env: {
        ATELIER_CATALOG: fileURLToPath(new URL('../../catalogs/openai.json', import.meta.url)),
        ATELIER_OPENAI_API_KEY: UPSTREAM_KEY,
        ATELIER_OPENAI_BASE_URL: fake.baseUrl,
      },
    });
    who = await operatorAndUser(t);
    r = requests(t);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  test('a quoted task that absorbs: rollup, admin usage, account list, CLI; not the account’s report', async () => {
    const body = { prompt: 'a lighthouse at dawn', model: 'base-image-2', imageSize: '1K' };
    const quoted = await r.send('POST', '/api/v1/quotes', who.plain, body);
    assert.equal(quoted.statusCode, 200, quoted.body);
    const cap: number = quoted.json().max_per_image_micros;
    const generated = await r.send('POST', '/api/v1/generate', who.plain, {
      ...body,
      quote_id: quoted.json().quote_id,
    });
    assert.equal(generated.statusCode, 200, generated.body);
    const [taskId] = generated.json().task_ids as string[];
    const { final } = await pollUntilFinal(t.app, who.user.apiKey, taskId ?? '');
    assert.equal(final.status, 'completed');
    // $5 / 1M text tokens, $30 / 1M output tokens: OpenAI billed this much, the account pays the cap.
    const billed = OVERBILLED_TEXT_TOKENS * 5 + 2 * gptImageOutputTokens('high', 1024, 1024) * 30;
    const absorbed = billed - cap;
    assert.ok(absorbed > 0, `the fake bills above the quote (${billed} > ${cap})`);

    const today = new Date().toISOString().slice(0, 10);
    const model = {
      model: 'base-image-2',
      completed: 1,
      failed: 0,
      cost_micros: cap,
      absorbed_micros: absorbed,
    };
    const counts = { completed: 1, failed: 0, cost_micros: cap, absorbed_micros: absorbed };
    const rollup = await t.core.resources.db.selectFrom('usage_daily').selectAll().execute();
    assert.deepEqual(
      rollup.map((row) => [
        row.account_id,
        row.day,
        row.model,
        Number(row.cost_micros),
        Number(row.absorbed_micros),
      ]),
      [[who.user.id, today, 'base-image-2', cap, absorbed]],
    );

    const usage = await r.get(`${ADMIN}/usage?from=${today}&to=${today}`, who.op);
    assert.equal(usage.statusCode, 200, usage.body);
    assert.deepEqual(usage.json().totals, counts);
    assert.deepEqual(usage.json().days, [{ date: today, ...counts, models: [model] }]);
    assert.deepEqual(usage.json().models, [model]);
    assert.deepEqual(usage.json().accounts, [
      { id: who.user.id, email: who.user.email, ...counts, models: [model] },
    ]);
    const own = await r.get(`${ADMIN}/accounts/${who.user.id}/usage?from=${today}&to=${today}`, who.op);
    assert.equal(own.statusCode, 200, own.body);
    assert.deepEqual(own.json().totals, counts);
    assert.deepEqual(own.json().models, [model]);
    const listed = (await r.get(`${ADMIN}/accounts?q=${encodeURIComponent(who.user.email)}`, who.op)).json();
    assert.deepEqual(listed.items[0].today, counts);

    // The account reads what it was charged; what the operator absorbed is not its figure.
    const report = await t.app.inject({
      method: 'GET',
      url: '/api/v1/user/usage',
      headers: bearer(who.user.apiKey),
    });
    assert.deepEqual(report.json().totals, { completed: 1, failed: 0, cost_micros: cap });
    assert.equal(JSON.stringify(report.json()).includes('absorbed'), false);

    const env = { ATELIER_DATA_DIR: t.dataDir, ATELIER_DATABASE_URL: t.core.config.databaseUrl };
    const all = await cli(env, 'usage', '--from', today, '--to', today);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^email\ttier\tcompleted\tfailed\tspend\tabsorbed$/m);
    const line = `${who.user.email}\ttrial\t1\t0\t${formatUsd(cap)}\t${formatUsd(absorbed)}`;
    assert.ok(all.stdout.split('\n').includes(line), `${line} in:\n${all.stdout}`);
    const one = await cli(env, 'usage', '--email', who.user.email, '--from', today, '--to', today);
    assert.equal(one.code, 0, one.stderr);
    assert.ok(
      one.stdout.split('\n').includes(`total\t1\t0\t${formatUsd(cap)}\t${formatUsd(absorbed)}`),
      one.stdout,
    );
    assert.match(
      one.stdout,
      new RegExp(`base-image-2: 1 completed, 0 failed, .+, \\${formatUsd(absorbed)} absorbed`),
    );
    const json = await cli(env, 'usage', '--from', today, '--to', today, '--json');
    assert.equal(JSON.parse(json.stdout).accounts[0].absorbed_micros, absorbed);
  });

  test('migration 0061 counts what tasks absorbed before it under their day and model', async () => {
    const rollup = () =>
      t.core.resources.db
        .selectFrom('usage_daily')
        .select(['account_id', 'day', 'model', 'absorbed_micros'])
        .orderBy('account_id')
        .execute()
        .then((rows) => rows.map((row) => ({ ...row, absorbed_micros: Number(row.absorbed_micros) })));
    const before = await rollup();
    assert.ok(before.some((row) => row.absorbed_micros > 0));
    // The store as 0060 left it: no column, 0061 not run (nor 0062–0071 after it); then migrated again.
    const db = t.core.resources.db;
    // 0079 (calls in flight), 0078 (account erase), 0077 (task traces), 0076 (key retention, zero-retention), 0075 (account retention), 0074 (files to remove, purged works), 0073 (spend confirmation), 0072 (actions, seeds), 0071 (kept turns) and 0070 (responses) undone first, then 0069 (lineage), then 0068: its indexes and column, and 0062's index it replaced.
    await sql`drop index upstream_calls_in_flight`.execute(db);
    await sql`drop table usage_erased`.execute(db);
    await sql`alter table accounts drop column erasing_at`.execute(db);
    for (const column of ['trace_id', 'trace_span_id', 'trace_parent_span_id'])
      await sql`alter table tasks drop column ${sql.ref(column)}`.execute(db);
    for (const column of ['retention_results_days', 'zero_retention'])
      await sql`alter table api_keys drop column ${sql.ref(column)}`.execute(db);
    await sql`alter table generations drop column zero_retention`.execute(db);
    for (const column of ['delivered_at', 'zero_retention'])
      await sql`alter table tasks drop column ${sql.ref(column)}`.execute(db);
    for (const column of ['retention_results_days', 'retention_uploads_days'])
      await sql`alter table accounts drop column ${sql.ref(column)}`.execute(db);
    await sql`drop table blob_purges`.execute(db);
    for (const table of ['spend_confirmations', 'mcp_answers'])
      await sql`drop table ${sql.table(table)}`.execute(db);
    for (const column of ['purged_at', 'action', 'action_json'])
      await sql`alter table generations drop column ${sql.ref(column)}`.execute(db);
    await sql`alter table tasks drop column seed`.execute(db);
    await sql`drop table task_turns`.execute(db);
    await sql`drop table responses`.execute(db);
    await sql`drop index generations_parent`.execute(db);
    for (const column of ['parent_id', 'parent_task_id', 'instruction'])
      await sql`alter table generations drop column ${sql.ref(column)}`.execute(db);
    await sql`alter table tasks drop column parent_task_id`.execute(db);
    await sql`drop index if exists tasks_log_error_trgm`.execute(db);
    if (dialectOf(db) === 'postgres') await sql`drop statistics tasks_route_pair`.execute(db);
    for (const index of ['tasks_log_model', 'tasks_log_errored'])
      await sql`drop index ${sql.ref(index)}`.execute(db);
    await sql`alter table tasks drop column model`.execute(db);
    await sql`alter table tasks drop column submits`.execute(db);
    await sql`create index generations_model_created on generations (model, created_at)`.execute(db);
    await sql`alter table usage_daily drop column absorbed_micros`.execute(db);
    for (const index of [
      'tasks_log_created',
      'tasks_log_failed',
      'tasks_log_route',
      'generations_model_created',
      'upstream_calls_task',
    ])
      await sql`drop index ${sql.ref(index)}`.execute(db);
    await sql`alter table tasks drop column upstream_refusals`.execute(db);
    await sql`alter table tasks drop column fallbacks_json`.execute(db);
    await sql`drop table audit_events`.execute(db);
    await sql`drop table policy_versions`.execute(db);
    await sql`drop table catalog_versions`.execute(db);
    for (const table of ['alert_deliveries', 'alert_episodes', 'alert_rules'])
      await sql`drop table ${sql.table(table)}`.execute(db);
    await sql`delete from kysely_migration where name in ('0061_usage_absorbed', '0062_task_log', '0063_audit_events', '0064_catalog_versions', '0065_policy_versions', '0066_alerts', '0068_task_log_model', '0069_lineage', '0070_responses', '0071_task_turns', '0072_actions_and_seeds', '0073_spend_confirmation', '0074_blob_purges', '0075_account_retention', '0076_zero_retention', '0077_task_traces', '0078_account_erase', '0079_calls_in_flight')`.execute(
      db,
    );
    await migrateToLatest(t.core.resources.db as unknown as Kysely<unknown>);
    assert.deepEqual(await rollup(), before);
  });
});
