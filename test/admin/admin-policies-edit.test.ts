import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import type { AdminPolicies } from '../../src/base/contract/admin.js';
import type { AuditEventWire } from '../../src/base/contract/admin-audit.js';
import type { AdminPolicyVersion, AdminPolicyVersions } from '../../src/base/contract/admin-policies.js';
import { type Core, createCore } from '../../src/core.js';
import { loadConfig } from '../../src/infra/config/config.js';
import { isPostgresUrl } from '../../src/infra/store/database.js';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { within } from '../support/within.js';
import { ADMIN, operatorAndUser, requests } from './admin-support.js';

// Issue 43, tier policies at run time: kept in the store in versions, seeded from
// ATELIER_POLICY_FILE, edited through the admin API and the console with the file's validation,
// picked up by every node within ATELIER_CONFIG_REFRESH_MS, every change in the audit log.

const FILE_POLICIES = {
  tiers: {
    trial: { models: ['base-image-2', 'flash'], images_per_day: 6 },
    starter: { tasks_in_flight: 3 },
  },
};

type Headers = Record<string, string>;

describe('operator console API: tier policies edited at run time', () => {
  let t: TestApp;
  let who: Awaited<ReturnType<typeof operatorAndUser>>;
  let r: ReturnType<typeof requests>;
  let dir: string;
  let file: string;
  /** Extra nodes on the test app's store, closed after the suite. */
  const nodes: Core[] = [];

  /** Another node on the same store (its data dir; its PostgreSQL database), with its own policy file. */
  async function node(policyFile: string | undefined) {
    const url = t.core.config.databaseUrl;
    const core = await createCore(
      loadConfig({
        ATELIER_DATA_DIR: t.dataDir,
        ...(isPostgresUrl(url) ? { ATELIER_DATABASE_URL: url } : {}),
        ...(policyFile ? { ATELIER_POLICY_FILE: policyFile } : {}),
        ATELIER_CONFIG_REFRESH_MS: '150',
        ATELIER_LOCAL_LATENCY_MS: '600000',
        ATELIER_DEMO_ACCOUNT: 'false',
        LOG_LEVEL: 'silent',
      }),
    );
    nodes.push(core);
    return core;
  }

  const generate = (apiKey: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/generate', headers: bearer(apiKey), payload });
  const policies = async () => {
    const res = await r.get(`${ADMIN}/policies`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<AdminPolicies>();
  };
  const tierOf = async (tier: string) => (await policies()).tiers.find((row) => row.tier === tier);
  const versions = async () =>
    (await r.get(`${ADMIN}/policies/versions`, who.op)).json<AdminPolicyVersions>();
  const patch = (tier: string, body: Record<string, unknown>, headers: Headers = who.op) =>
    r.send('PATCH', `${ADMIN}/policies/tiers/${tier}`, headers, body);
  const patched = async (tier: string, body: Record<string, unknown>, headers: Headers = who.op) => {
    const res = await patch(tier, body, headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<AdminPolicyVersion>();
  };
  const audit = async (query: string) => {
    const res = await r.get(`${ADMIN}/audit?target_type=tier-policy${query}`, who.op);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ items: AuditEventWire[] }>().items;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-policy-edit-'));
    file = join(dir, 'policy.json');
    await writeFile(file, JSON.stringify(FILE_POLICIES));
    // Tasks stay in flight for the whole suite: quotas are about what was requested.
    t = await createTestApp({
      env: {
        ATELIER_POLICY_FILE: file,
        ATELIER_LOCAL_LATENCY_MS: '600000',
        ATELIER_CONFIG_REFRESH_MS: '150',
      },
    });
    who = await operatorAndUser(t);
    r = requests(t);
  });
  after(async () => {
    for (const core of nodes) await core.close(0);
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the first start seeds version 1 from the file, recorded in the audit log', async () => {
    const answer = await policies();
    assert.equal(answer.in_force.version, 1);
    assert.equal(answer.in_force.source, 'file');
    assert.equal(answer.in_force.created_by, `file:${file}`);
    assert.match(answer.in_force.file_sha256 ?? '', /^[0-9a-f]{64}$/);
    assert.deepEqual(await tierOf('trial'), {
      tier: 'trial',
      policy: true,
      models: ['base-image-2', 'flash'],
      images_per_day: 6,
      images_per_month: null,
      tasks_in_flight: null,
      accounts: 1,
    });
    assert.deepEqual(
      (await versions()).items.map((v) => [v.version, v.source, v.tiers]),
      [[1, 'file', FILE_POLICIES.tiers]],
    );
    const [seeded] = await audit('&action=policy.import');
    assert.equal(seeded?.source, 'file');
    assert.equal(seeded?.actor, `file:${file}`);
    assert.equal(seeded?.before, null);
    assert.deepEqual(seeded?.after, { version: 1, source: 'file', tiers: FILE_POLICIES.tiers });
  });

  test('tightening a tier refuses the next request over it; loosening accepts it', async () => {
    const trial = await t.createAccount(undefined, { tier: 'trial' });
    const other = await t.createAccount(undefined, { tier: 'trial' });
    assert.equal((await generate(trial.apiKey, { prompt: 'three', count: 3 })).statusCode, 200);
    const version = (await policies()).in_force.version;
    const written = await patched('trial', { images_per_day: 3, expected_version: version });
    assert.equal(written.version, version + 1);
    assert.equal(written.source, 'api');
    assert.deepEqual(written.tiers.trial, { models: ['base-image-2', 'flash'], images_per_day: 3 });
    const refused = await generate(trial.apiKey, { prompt: 'one more' });
    assert.match(
      assertError(refused, 429, 'quota_exceeded'),
      /the trial tier allows 3 images per day \(UTC\); 3 used, 1 requested/,
    );
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    // Another account of the tier still has its own three.
    assert.equal((await generate(other.apiKey, { prompt: 'two', count: 2 })).statusCode, 200);

    await patched('trial', { images_per_day: 5 });
    assert.equal((await generate(trial.apiKey, { prompt: 'two', count: 2 })).statusCode, 200);
    assertError(await generate(trial.apiKey, { prompt: 'six' }), 429, 'quota_exceeded');

    // The starter tier: tasks in flight; removing the limit (null) lets the next one in.
    const starter = await t.createAccount(undefined, { tier: 'starter' });
    assert.equal((await generate(starter.apiKey, { prompt: 'a', count: 3 })).statusCode, 200);
    assertError(await generate(starter.apiKey, { prompt: 'b' }), 429, 'quota_exceeded');
    const freed = await patched('starter', { tasks_in_flight: null });
    assert.equal(freed.tiers.starter, undefined, 'a tier left with no field has no policy');
    assert.equal((await generate(starter.apiKey, { prompt: 'b' })).statusCode, 200);
    assert.equal((await tierOf('starter'))?.policy, false);
  });

  test('a whole document through PUT: a model the tier may not use, and its allowance', async () => {
    const standard = await t.createAccount(undefined, { tier: 'standard' });
    assert.equal((await generate(standard.apiKey, { prompt: 'x', model: 'pro' })).statusCode, 200);
    const { in_force } = await policies();
    const document = {
      tiers: { standard: { models: ['flash'], images_per_month: 40 }, trial: { images_per_day: 5 } },
    };
    const res = await r.send('PUT', `${ADMIN}/policies`, who.op, {
      ...document,
      expected_version: in_force.version,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json<AdminPolicyVersion>().tiers, {
      trial: { images_per_day: 5 },
      standard: { models: ['flash'], images_per_month: 40 },
    });
    assert.match(
      assertError(await generate(standard.apiKey, { prompt: 'x', model: 'pro' }), 403, 'forbidden_model'),
      /pro is not available on the standard tier \(available: flash\)/,
    );
    const usage = (
      await t.app.inject({ method: 'GET', url: '/api/v1/user/usage', headers: bearer(standard.apiKey) })
    ).json();
    assert.deepEqual(usage.allowance.images_per_month.limit, 40);
    assert.equal(usage.allowance.images_per_month.used, 1);
  });

  test("invalid edits are refused with the loader's messages, and change nothing", async () => {
    const before = (await policies()).in_force.version;
    const cases: Array<[string, ReturnType<typeof patch>, RegExp]> = [
      [
        'zero',
        patch('trial', { images_per_day: 0 }),
        /tiers\.trial\.images_per_day: must be a positive integer/,
      ],
      [
        'fraction',
        patch('pro', { tasks_in_flight: 2.5 }),
        /tiers\.pro\.tasks_in_flight: must be a positive integer/,
      ],
      [
        'model',
        patch('trial', { models: ['flash', 'flahs'] }),
        /tiers\.trial\.models: unknown model "flahs"/,
      ],
      ['no model', patch('trial', { models: [] }), /must list at least one model/],
      ['field', patch('trial', { images_per_week: 3 }), /tiers\.trial: unknown field "images_per_week"/],
      [
        'tier',
        r.send('PUT', `${ADMIN}/policies`, who.op, { tiers: { gold: {} }, expected_version: before }),
        /tiers: unknown tier "gold" \(tiers: trial, starter, standard, pro\)/,
      ],
      [
        'root',
        r.send('PUT', `${ADMIN}/policies`, who.op, { tiers: {}, extra: 1, expected_version: before }),
        /\(root\): unknown field "extra"/,
      ],
    ];
    for (const [name, answer, message] of cases) {
      const text = assertError(await answer, 400, 'invalid_request');
      assert.match(text, /^The policy document is invalid:/, name);
      assert.match(text, message, name);
    }
    assert.equal((await policies()).in_force.version, before, 'no version written');
  });

  test('an edit made on a version no longer in force is 409 conflict', async () => {
    const { in_force } = await policies();
    await patched('pro', { images_per_month: 900 });
    const stale = await r.send('PUT', `${ADMIN}/policies`, who.op, {
      tiers: {},
      expected_version: in_force.version,
    });
    assert.match(assertError(stale, 409, 'conflict'), /at version \d+, not \d+/);
    assertError(
      await patch('pro', { images_per_month: 1, expected_version: in_force.version }),
      409,
      'conflict',
    );
    assert.equal((await tierOf('pro'))?.images_per_month, 900);
  });

  test('an edit through the console is recorded with its source and before/after', async () => {
    const written = await patched('pro', { images_per_day: 70, images_per_month: null }, who.web);
    assert.equal(written.source, 'console');
    assert.equal(written.created_by, who.operator.email);
    const [event] = await audit('&action=policy.tier.update&target_id=pro');
    assert.equal(event?.source, 'website');
    assert.equal(event?.actor, who.operator.email);
    assert.deepEqual(event?.before, {
      version: written.version - 1,
      source: 'api',
      tier: 'pro',
      policy: { images_per_month: 900 },
    });
    assert.deepEqual(event?.after, {
      version: written.version,
      source: 'console',
      tier: 'pro',
      policy: { images_per_day: 70 },
    });
    const [replaced] = await audit('&action=policy.replace');
    assert.equal(replaced?.target_id, 'tiers');
    assert.deepEqual(Object.keys((replaced?.after?.tiers ?? {}) as object), ['trial', 'standard']);
    assert.equal(replaced?.before?.version, (replaced?.after?.version as number) - 1);
  });

  test('a change made on node A is in force on node B within seconds', async () => {
    const b = await node(file);
    const appB = await buildApp(b);
    try {
      const account = await t.createAccount(undefined, { tier: 'pro' });
      const onB = (payload: Record<string, unknown>) =>
        appB.inject({ method: 'POST', url: '/api/v1/generate', headers: bearer(account.apiKey), payload });
      assert.equal((await onB({ prompt: 'first', count: 2 })).statusCode, 200);
      const seen = new Promise<number>((resolve) => {
        const stop = b.tierPolicies.onChange((version) => {
          if (version.tiers.pro?.images_per_day !== 2) return;
          stop();
          resolve(version.version);
        });
      });
      const written = await patched('pro', { images_per_day: 2 });
      assert.equal(await within(10_000, "node B's change", seen), written.version);
      assert.match(
        assertError(await onB({ prompt: 'third' }), 429, 'quota_exceeded'),
        /the pro tier allows 2 images per day/,
      );

      // Two edits at once on the two nodes, without expected_version: neither is lost.
      const both = await Promise.all([
        patch('standard', { tasks_in_flight: 4 }),
        appB.inject({
          method: 'PATCH',
          url: `${ADMIN}/policies/tiers/starter`,
          headers: who.op,
          payload: { images_per_day: 11 },
        }),
      ]);
      for (const res of both) assert.equal(res.statusCode, 200, res.body);
      const versionsOf = both.map((res) => res.json<AdminPolicyVersion>().version).sort((a, b) => a - b);
      assert.equal(versionsOf[1], (versionsOf[0] as number) + 1, 'one after the other');
      const [newest] = (await versions()).items;
      assert.equal(newest?.tiers.standard?.tasks_in_flight, 4);
      assert.equal(newest?.tiers.starter?.images_per_day, 11);
    } finally {
      await appB.close();
    }
  });

  test('which wins: an unchanged file never overrides edits; a changed file is imported as a new version', async () => {
    await t.core.tierPolicies.refresh(); // node B's last edit, without waiting for the next tick
    const edited = (await policies()).in_force;
    assert.notEqual(edited.source, 'file');
    await node(file); // a restart with the same file
    await node(undefined); // a start without ATELIER_POLICY_FILE leaves the store as it is
    assert.deepEqual((await policies()).in_force, edited, 'the edits stand');

    const changed = { tiers: { trial: { images_per_day: 1 } } };
    await writeFile(file, JSON.stringify(changed));
    // Two nodes starting at once with the changed file import it once.
    const [c, d] = await Promise.all([node(file), node(file)]);
    const imported = c.tierPolicies.current();
    assert.equal(imported.version, edited.version + 1);
    assert.equal(d.tierPolicies.current().version, imported.version);
    assert.equal(imported.source, 'file');
    assert.deepEqual(imported.tiers, changed.tiers);
    const [event] = await audit('&action=policy.import');
    assert.equal(event?.after?.version, imported.version);
    assert.equal(event?.before?.version, edited.version);
    assert.equal((await versions()).items.length, imported.version, 'every version kept');

    // A console edit after the import survives a restart with that same file.
    await patched('trial', { images_per_day: 9 }, who.web);
    const e = await node(file);
    assert.equal(e.tierPolicies.current().tiers.trial?.images_per_day, 9);
    assert.equal(e.tierPolicies.current().version, imported.version + 1);
  });
});
