import assert from 'node:assert/strict';
import { describeContract } from '../support/openapi-contract.js';
import { ADMIN, operatorAndUser } from './admin-support.js';
import { BASE, insertTask } from './task-log-seed.js';

/**
 * The operator console's API (/api/admin/v1) against the served document: every operation's real
 * answers — a success, an error, and a non-operator's refusal each — match the documented schemas.
 */
describeContract('the OpenAPI document is the contract of the admin API', ADMIN, async (t, exercise) => {
  const { op, plain, web, user, operator } = await operatorAndUser(t);
  const accounts = `${ADMIN}/accounts`;
  await exercise(
    'GET',
    accounts,
    { url: `${accounts}?q=example&tier=trial&disabled=false`, headers: op },
    200,
  );
  await exercise('GET', accounts, { url: `${accounts}?limit=500`, headers: op }, 400);
  await exercise('GET', accounts, { url: accounts, headers: plain }, 403);
  await exercise('GET', accounts, { url: accounts }, 401);
  const created = await exercise(
    'POST',
    accounts,
    { url: accounts, headers: web, payload: { email: 'contract@example.test', tier: 'starter' } },
    201,
  );
  await exercise('POST', accounts, { url: accounts, headers: op, payload: { email: 'not an email' } }, 400);
  await exercise('POST', accounts, { url: accounts, headers: plain, payload: { email: 'x@y.z' } }, 403);
  const id = created.json().account.id as string;

  const one = `${ADMIN}/accounts/{id}`;
  await exercise('GET', one, { url: `${accounts}/${id}`, headers: op }, 200);
  await exercise('GET', one, { url: `${accounts}/acc_none`, headers: op }, 404);
  await exercise('PATCH', one, { url: `${accounts}/${id}`, headers: op, payload: { tier: 'pro' } }, 200);
  await exercise('PATCH', one, { url: `${accounts}/${id}`, headers: op, payload: { disabled: 'yes' } }, 400);
  await exercise('PATCH', one, { url: `${accounts}/acc_none`, headers: op, payload: {} }, 404);
  const self = `${accounts}/${(await t.core.accounts.requireByEmail(user.email)).id}`;
  await exercise('PATCH', one, { url: self, headers: plain, payload: { tier: 'pro' } }, 403);

  const password = `${ADMIN}/accounts/{id}/password`;
  await exercise('POST', password, { url: `${accounts}/${id}/password`, headers: op, payload: {} }, 200);
  const short = { password: 'short' };
  await exercise('POST', password, { url: `${accounts}/${id}/password`, headers: op, payload: short }, 400);
  await exercise('POST', password, { url: `${accounts}/acc_none/password`, headers: op, payload: {} }, 404);

  const budget = `${ADMIN}/accounts/{id}/budget`;
  const daily = { daily_micros: 1_000_000, monthly_micros: null };
  await exercise('PUT', budget, { url: `${accounts}/${id}/budget`, headers: op, payload: daily }, 200);
  await exercise(
    'PUT',
    budget,
    { url: `${accounts}/${id}/budget`, headers: op, payload: { daily_micros: 1.5 } },
    400,
  );
  await exercise('PUT', budget, { url: `${accounts}/acc_none/budget`, headers: op, payload: {} }, 404);
  await exercise('PUT', budget, { url: `${accounts}/${id}/budget`, headers: plain, payload: {} }, 403);

  const retention = `${ADMIN}/accounts/{id}/retention`;
  const kept = { results_days: 30, uploads_days: null };
  await exercise('PUT', retention, { url: `${accounts}/${id}/retention`, headers: op, payload: kept }, 200);
  const zero = { results_days: 0 };
  await exercise('PUT', retention, { url: `${accounts}/${id}/retention`, headers: op, payload: zero }, 400);
  await exercise('PUT', retention, { url: `${accounts}/acc_none/retention`, headers: op, payload: {} }, 404);
  await exercise('PUT', retention, { url: `${accounts}/${id}/retention`, headers: plain, payload: {} }, 403);

  const exportRoute = `${ADMIN}/accounts/{id}/export`;
  await exercise('GET', exportRoute, { url: `${accounts}/${id}/export`, headers: op }, 200);
  await exercise('GET', exportRoute, { url: `${accounts}/acc_none/export`, headers: op }, 404);
  await exercise('GET', exportRoute, { url: `${accounts}/${id}/export`, headers: plain }, 403);
  const erase = `${ADMIN}/accounts/{id}/erase`;
  const leaving = await t.createAccount();
  const named = (confirm: string) => ({ confirm });
  await exercise('POST', erase, { url: `${accounts}/${leaving.id}/erase`, headers: op, payload: {} }, 400);
  await exercise(
    'POST',
    erase,
    { url: `${accounts}/acc_none/erase`, headers: op, payload: named('x@y.z') },
    404,
  );
  const operatorId = (await t.core.accounts.requireByEmail(operator.email)).id;
  const myself = { url: `${accounts}/${operatorId}/erase`, headers: op, payload: named(operator.email) };
  await exercise('POST', erase, myself, 409);
  const gone = { url: `${accounts}/${leaving.id}/erase`, headers: op, payload: named(leaving.email) };
  await exercise('POST', erase, { ...gone, headers: plain }, 403);
  await exercise('POST', erase, gone, 200);

  const usage = `${ADMIN}/accounts/{id}/usage`;
  await exercise('GET', usage, { url: `${accounts}/${id}/usage`, headers: op }, 200);
  await exercise('GET', usage, { url: `${accounts}/${id}/usage?from=2026-13-01`, headers: op }, 400);
  await exercise('GET', usage, { url: `${accounts}/acc_none/usage`, headers: op }, 404);

  const keys = `${ADMIN}/accounts/{id}/keys`;
  await exercise('GET', keys, { url: `${accounts}/${id}/keys?revoked=true`, headers: op }, 200);
  await exercise('GET', keys, { url: `${accounts}/${id}/keys?revoked=1`, headers: op }, 400);
  await exercise('GET', keys, { url: `${accounts}/acc_none/keys`, headers: op }, 404);
  const issued = await exercise(
    'POST',
    keys,
    { url: `${accounts}/${id}/keys`, headers: op, payload: { name: 'ci', scope: 'read' } },
    201,
  );
  await exercise('POST', keys, { url: `${accounts}/${id}/keys`, headers: op, payload: { name: 3 } }, 400);
  await exercise(
    'POST',
    keys,
    { url: `${accounts}/${id}/keys`, headers: plain, payload: { name: 'x' } },
    403,
  );
  const keyId = issued.json().key.id as string;
  const keyBudget = `${ADMIN}/accounts/{id}/keys/{key_id}/budget`;
  const issuedId = issued.json().key.id as string;
  const keyBudgetUrl = `${accounts}/${id}/keys/${issuedId}/budget`;
  await exercise(
    'PUT',
    keyBudget,
    { url: keyBudgetUrl, headers: op, payload: { monthly_micros: 5_000_000 } },
    200,
  );
  await exercise('PUT', keyBudget, { url: keyBudgetUrl, headers: op, payload: { monthly_micros: 'x' } }, 400);
  await exercise(
    'PUT',
    keyBudget,
    { url: `${accounts}/${id}/keys/key_none/budget`, headers: op, payload: {} },
    404,
  );
  await exercise('PUT', keyBudget, { url: keyBudgetUrl, headers: plain, payload: {} }, 403);
  const keyRetention = `${ADMIN}/accounts/{id}/keys/{key_id}/retention`;
  const keyRetentionUrl = `${accounts}/${id}/keys/${issuedId}/retention`;
  const keep = { results_days: 7, zero_retention: true };
  await exercise('PUT', keyRetention, { url: keyRetentionUrl, headers: op, payload: keep }, 200);
  await exercise(
    'PUT',
    keyRetention,
    { url: keyRetentionUrl, headers: op, payload: { results_days: 0 } },
    400,
  );
  const noKey = `${accounts}/${id}/keys/key_none/retention`;
  await exercise('PUT', keyRetention, { url: noKey, headers: op, payload: {} }, 404);
  await exercise('PUT', keyRetention, { url: keyRetentionUrl, headers: plain, payload: {} }, 403);
  await exercise('GET', keys, { url: `${accounts}/${id}/keys`, headers: op }, 200);
  const key = `${ADMIN}/accounts/{id}/keys/{key_id}`;
  const reader = { authorization: `Bearer ${issued.json().api_key}` };
  await exercise('DELETE', key, { url: `${accounts}/${id}/keys/${keyId}`, headers: op }, 200);
  await exercise('DELETE', key, { url: `${accounts}/${id}/keys/${keyId}`, headers: op }, 404);
  await exercise('DELETE', key, { url: `${accounts}/${id}/keys/${keyId}`, headers: reader }, 401);

  await exercise('GET', `${ADMIN}/usage`, { url: `${ADMIN}/usage`, headers: op }, 200);
  await exercise('GET', `${ADMIN}/usage`, { url: `${ADMIN}/usage?from=x`, headers: op }, 400);
  const policies = `${ADMIN}/policies`;
  const inForce = (await exercise('GET', policies, { url: policies, headers: op }, 200)).json().in_force;
  await exercise('GET', policies, { url: policies, headers: plain }, 403);
  const document = (version: number, images_per_day = 5) => ({
    tiers: { trial: { models: ['flash'], images_per_day } },
    expected_version: version,
  });
  await exercise('PUT', policies, { url: policies, headers: op, payload: document(inForce.version) }, 200);
  await exercise(
    'PUT',
    policies,
    { url: policies, headers: op, payload: document(inForce.version + 1, 0) },
    400,
  );
  await exercise('PUT', policies, { url: policies, headers: op, payload: document(inForce.version) }, 409);
  await exercise('PUT', policies, { url: policies, headers: plain, payload: document(inForce.version) }, 403);
  const tier = `${ADMIN}/policies/tiers/{tier}`;
  const trial = `${policies}/tiers/trial`;
  await exercise('PATCH', tier, { url: trial, headers: web, payload: { tasks_in_flight: 2 } }, 200);
  await exercise('PATCH', tier, { url: trial, headers: op, payload: { images_per_day: -1 } }, 400);
  await exercise('PATCH', tier, { url: trial, headers: op, payload: { expected_version: 0 } }, 409);
  await exercise('PATCH', tier, { url: trial, headers: plain, payload: {} }, 403);
  const versions = `${ADMIN}/policies/versions`;
  await exercise('GET', versions, { url: `${versions}?limit=2`, headers: op }, 200);
  await exercise('GET', versions, { url: `${versions}?limit=0`, headers: op }, 400);
  await exercise('GET', versions, { url: versions, headers: plain }, 403);
  await exercise('GET', `${ADMIN}/upstreams`, { url: `${ADMIN}/upstreams`, headers: op }, 200);
  await exercise('GET', `${ADMIN}/upstreams`, { url: `${ADMIN}/upstreams`, headers: plain }, 403);

  const tasks = `${ADMIN}/tasks`;
  const task = {
    id: 'tsk_contract',
    accountId: id,
    email: 'contract@example.test',
    keyId: null,
    model: 'base-image-2',
    provider: 'openai',
    upstreamModel: 'gpt-image-1',
    status: 'failed' as const,
    error: 'upstream timeout',
    createdAt: BASE,
  };
  await insertTask(t.core.resources.db, task, {
    fallbacks_json: JSON.stringify([{ from: 'a/b', to: 'openai/gpt-image-1', at: BASE, error: 'HTTP 503' }]),
  });
  await exercise('GET', tasks, { url: `${tasks}?status=failed&limit=1`, headers: op }, 200);
  await exercise('GET', tasks, { url: `${tasks}?limit=500`, headers: op }, 400);
  await exercise('GET', tasks, { url: tasks, headers: plain }, 403);
  const oneTask = `${ADMIN}/tasks/{id}`;
  await exercise('GET', oneTask, { url: `${tasks}/${task.id}`, headers: op }, 200);
  await exercise('GET', oneTask, { url: `${tasks}/tsk_none`, headers: op }, 404);
  await exercise('GET', oneTask, { url: `${tasks}/${task.id}`, headers: plain }, 403);

  const queue = `${ADMIN}/queue`;
  const waiting = { ...task, id: 'tsk_contract_queued', status: 'queued' as const, error: null };
  await insertTask(t.core.resources.db, waiting);
  await exercise('GET', queue, { url: queue, headers: op }, 200);
  await exercise('GET', queue, { url: queue, headers: plain }, 403);
  const cancel = `${ADMIN}/queue/cancel`;
  const single = { task_id: waiting.id };
  await exercise('POST', cancel, { url: cancel, headers: op, payload: single }, 200);
  await exercise('POST', cancel, { url: cancel, headers: op, payload: single }, 409);
  await exercise('POST', cancel, { url: cancel, headers: op, payload: { task_id: 'tsk_none' } }, 404);
  await exercise('POST', cancel, { url: cancel, headers: op, payload: {} }, 400);
  await exercise('POST', cancel, { url: cancel, headers: plain, payload: single }, 403);

  const pool = `${ADMIN}/provider-keys`;
  const added = { provider: 'openai', name: 'contract', key: 'sk-contract-key', weight: 2, project: 'p1' };
  await exercise('POST', pool, { url: pool, headers: op, payload: added }, 201);
  await exercise('POST', pool, { url: pool, headers: op, payload: added }, 409);
  await exercise('POST', pool, { url: pool, headers: op, payload: { provider: 'openai' } }, 400);
  await exercise('POST', pool, { url: pool, headers: plain, payload: added }, 403);
  await exercise('GET', pool, { url: pool, headers: op }, 200);
  await exercise('GET', pool, { url: pool, headers: plain }, 403);
  const poolKey = `${ADMIN}/provider-keys/{provider}/{name}`;
  const contract = `${pool}/openai/contract`;
  await exercise('PATCH', poolKey, { url: contract, headers: op, payload: { enabled: false } }, 200);
  await exercise('PATCH', poolKey, { url: contract, headers: op, payload: { weight: 0 } }, 400);
  await exercise('PATCH', poolKey, { url: `${pool}/openai/none`, headers: op, payload: {} }, 404);
  await exercise('PATCH', poolKey, { url: contract, headers: plain, payload: {} }, 403);
  await exercise('DELETE', poolKey, { url: contract, headers: op }, 200);
  await exercise('DELETE', poolKey, { url: contract, headers: op }, 404);
  await exercise('DELETE', poolKey, { url: contract, headers: plain }, 403);

  await exerciseCatalog(exercise, { op, plain });

  const audit = `${ADMIN}/audit`;
  const firstPage = await exercise('GET', audit, { url: `${audit}?limit=2`, headers: op }, 200);
  const { next_cursor } = firstPage.json<{ next_cursor: string | null }>();
  assert.ok(next_cursor, 'the run made more than two changes');
  await exercise('GET', audit, { url: `${audit}?limit=2&cursor=${next_cursor}`, headers: op }, 200);
  await exercise('GET', audit, { url: `${audit}?action=account.remove`, headers: op }, 400);
  await exercise('GET', audit, { url: audit, headers: plain }, 403);
  await exercise('GET', audit, { url: audit }, 401);
  const exported = `${audit}/export`;
  await exercise('GET', exported, { url: exported, headers: op }, 200);
  await exercise('GET', exported, { url: `${exported}?from=x`, headers: op }, 400);
  await exercise('GET', exported, { url: exported, headers: plain }, 403);

  // A public address written as such: vetting it needs no DNS (nothing here waits for a delivery).
  const alerts = `${ADMIN}/alerts`;
  const rule = {
    kind: 'budget.threshold',
    url: 'http://93.184.216.34/hooks/atelier',
    params: { thresholds: [75] },
  };
  const made = await exercise('POST', alerts, { url: alerts, headers: op, payload: rule }, 201);
  await exercise('POST', alerts, { url: alerts, headers: op, payload: { ...rule, kind: 'disk.full' } }, 400);
  await exercise('POST', alerts, { url: alerts, headers: plain, payload: rule }, 403);
  await exercise('GET', alerts, { url: alerts, headers: op }, 200);
  await exercise('GET', alerts, { url: alerts, headers: plain }, 403);
  const alertId = made.json<{ id: string }>().id;
  const oneAlert = `${ADMIN}/alerts/{id}`;
  await exercise(
    'PATCH',
    oneAlert,
    { url: `${alerts}/${alertId}`, headers: op, payload: { format: 'slack' } },
    200,
  );
  await exercise(
    'PATCH',
    oneAlert,
    { url: `${alerts}/${alertId}`, headers: op, payload: { format: 'xml' } },
    400,
  );
  await exercise('PATCH', oneAlert, { url: `${alerts}/alr_none`, headers: op, payload: {} }, 404);
  await exercise('PATCH', oneAlert, { url: `${alerts}/${alertId}`, headers: plain, payload: {} }, 403);
  const testAlert = `${ADMIN}/alerts/{id}/test`;
  await exercise('POST', testAlert, { url: `${alerts}/${alertId}/test`, headers: op }, 202);
  await exercise('POST', testAlert, { url: `${alerts}/alr_none/test`, headers: op }, 404);
  await exercise('POST', testAlert, { url: `${alerts}/${alertId}/test`, headers: plain }, 403);
  const sent = `${ADMIN}/alerts/deliveries`;
  await exercise('GET', sent, { url: `${sent}?rule_id=${alertId}`, headers: op }, 200);
  await exercise('GET', sent, { url: `${sent}?rule_id=${'x'.repeat(100)}`, headers: op }, 400);
  await exercise('GET', sent, { url: sent, headers: plain }, 403);
  await exercise('DELETE', oneAlert, { url: `${alerts}/${alertId}`, headers: op }, 200);
  await exercise('DELETE', oneAlert, { url: `${alerts}/${alertId}`, headers: op }, 404);
  await exercise('DELETE', oneAlert, { url: `${alerts}/${alertId}`, headers: plain }, 403);
});

type Exercise = Parameters<Parameters<typeof describeContract>[2]>[1];

/** The catalog's routes: read, replace, edit a model, the history, a route's test. */
async function exerciseCatalog(
  exercise: Exercise,
  { op, plain }: Record<'op' | 'plain', Record<string, string>>,
) {
  const catalog = `${ADMIN}/catalog`;
  const read = await exercise('GET', catalog, { url: catalog, headers: op }, 200);
  await exercise('GET', catalog, { url: catalog, headers: plain }, 403);
  const { version, document } = read.json<{ version: number; document: Record<string, unknown> }>();
  await exercise(
    'PUT',
    catalog,
    { url: catalog, headers: op, payload: { expected_version: version, document } },
    200,
  );
  await exercise(
    'PUT',
    catalog,
    { url: catalog, headers: op, payload: { expected_version: version, document } },
    409,
  );
  await exercise(
    'PUT',
    catalog,
    { url: catalog, headers: op, payload: { expected_version: 2, document: {} } },
    400,
  );
  await exercise('PUT', catalog, { url: catalog, headers: plain, payload: {} }, 403);
  const model = `${catalog}/models/{id}`;
  const limit = { expected_version: version + 1, capacity: { maxInFlight: 8 } };
  await exercise('PATCH', model, { url: `${catalog}/models/flash`, headers: op, payload: limit }, 200);
  await exercise('PATCH', model, { url: `${catalog}/models/flash`, headers: op, payload: limit }, 409);
  const bad = { expected_version: version + 2, capacity: { maxInFlight: -1 } };
  await exercise('PATCH', model, { url: `${catalog}/models/flash`, headers: op, payload: bad }, 400);
  await exercise('PATCH', model, { url: `${catalog}/models/none`, headers: op, payload: bad }, 404);
  await exercise('PATCH', model, { url: `${catalog}/models/flash`, headers: plain, payload: bad }, 403);
  const versions = `${catalog}/versions`;
  await exercise('GET', versions, { url: versions, headers: op }, 200);
  await exercise('GET', versions, { url: `${versions}?limit=0`, headers: op }, 400);
  await exercise('GET', versions, { url: versions, headers: plain }, 403);
  const one = `${versions}/{version}`;
  await exercise('GET', one, { url: `${versions}/1`, headers: op }, 200);
  await exercise('GET', one, { url: `${versions}/99`, headers: op }, 404);
  await exercise('GET', one, { url: `${versions}/x`, headers: op }, 400);
  await exercise('GET', one, { url: `${versions}/1`, headers: plain }, 403);
  const test = `${catalog}/test`;
  await exercise('POST', test, { url: test, headers: op, payload: { route_id: 'local/local-v1' } }, 200);
  await exercise('POST', test, { url: test, headers: op, payload: { route_id: 'local/none' } }, 404);
  await exercise('POST', test, { url: test, headers: op, payload: {} }, 400);
  await exercise('POST', test, { url: test, headers: plain, payload: { route_id: 'local/local-v1' } }, 403);
}
