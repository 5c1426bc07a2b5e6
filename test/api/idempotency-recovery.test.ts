import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { DomainError } from '../../src/base/domain/errors.js';
import {
  CLAIM_LEASE_MS,
  createIdempotencyRepository,
  type IdempotencyClaim,
} from '../../src/capabilities/idempotency/idempotency-repository.js';
import { apiErrorOf } from '../../src/edges/http/errors.js';
import { createProcessOwner, currentProcessIdentity } from '../../src/infra/jobs/process-owner.js';
import { assertError, bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * Idempotency-Keys through crashes: a key whose request died is free again (at once when its holder
 * is a dead process on this host, else when its claim's lease runs out), and a generation commits
 * together with its key's answer, so a retry after any crash replays what was committed.
 */
describe('Idempotency-Key after a crash', () => {
  let t: TestApp;
  let apiKey: string;
  let accountId: string;
  let skewMs = 0;
  const clock = { now: () => Date.now() + skewMs };

  before(async () => {
    t = await createTestApp({ overrides: { clock } });
    ({ apiKey, id: accountId } = await t.createAccount());
  });
  after(() => t.close());

  const body = (prompt: string) => ({ prompt, imageSize: '1K' as const, count: 2 });
  const generate = (key: string, payload: object) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/generate',
      headers: { ...bearer(apiKey), 'idempotency-key': key },
      payload,
    });
  const generationCount = async () =>
    Number(
      (
        await t.core.resources.db
          .selectFrom('generations')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** The request fingerprint the server stores for `payload` (learned from a throwaway key). */
  async function hashOf(payload: object): Promise<string> {
    const probe = `probe-${Math.random()}`;
    assert.equal((await generate(probe, payload)).statusCode, 200);
    const row = await t.core.resources.db
      .selectFrom('idempotency_keys')
      .select('request_hash')
      .where('key', '=', probe)
      .executeTakeFirstOrThrow();
    return row.request_hash;
  }
  /** A repository as another process would hold it. */
  const heldBy = (patch: Partial<ReturnType<typeof currentProcessIdentity>>) =>
    createIdempotencyRepository({
      db: t.core.resources.db,
      clock,
      owner: createProcessOwner({ ...currentProcessIdentity(), ...patch }),
    });

  test('a key claimed by a process that died (kill -9) is free at once: the retry creates once', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await once(child, 'exit');
    const dead = heldBy({ pid: child.pid ?? 0, token: 'killed' });
    assert.equal((await dead.claim(accountId, 'died-before-commit', 'whatever')).kind, 'claimed');

    const before = await generationCount();
    const retry = await generate('died-before-commit', body('after the crash'));
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
    assert.equal(await generationCount(), before + 1);
    const replay = await generate('died-before-commit', body('after the crash'));
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, retry.body);
  });

  test('a key held by a live process elsewhere answers 409 until its lease runs out', async () => {
    const payload = body('held elsewhere');
    const elsewhere = heldBy({ host: 'another-node', token: 'alive' });
    assert.equal((await elsewhere.claim(accountId, 'held', await hashOf(payload))).kind, 'claimed');
    assertError(await generate('held', payload), 409, 'idempotency_in_progress');

    skewMs += CLAIM_LEASE_MS + 1;
    const retry = await generate('held', payload);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], undefined);
  });

  test('a holder that renews keeps its key; one that stops renewing loses it', async () => {
    const holder = heldBy({ host: 'another-node', token: 'renewing' });
    const rival = heldBy({ host: 'a-third-node', token: 'rival' });
    const claimed = await holder.claim(accountId, 'renewed', 'h');
    assert.equal(claimed.kind, 'claimed');
    const claim = (claimed as { claim: IdempotencyClaim }).claim;
    for (let beat = 0; beat < 4; beat++) {
      skewMs += CLAIM_LEASE_MS / 2;
      assert.equal(await holder.renew(claim), true);
      assert.equal((await rival.claim(accountId, 'renewed', 'h')).kind, 'existing');
    }
    skewMs += CLAIM_LEASE_MS + 1;
    assert.equal((await rival.claim(accountId, 'renewed', 'h')).kind, 'claimed');
    assert.equal(await holder.renew(claim), false, 'the old holder learns it lost the key');
  });

  test('the answer commits with the generation: a response lost after the commit is replayed, not re-created', async () => {
    // The service alone, as when the process dies after the commit and before the response leaves.
    const claimed = await t.core.idempotency.claim(accountId, 'lost-response', await hashOf(body('lost')));
    assert.equal(claimed.kind, 'claimed');
    const account = await t.core.accountsRepository.findById(accountId);
    assert.ok(account);
    const before = await generationCount();
    const answer = await t.core.generations.generate(
      account,
      body('lost'),
      'api',
      (claimed as { claim: IdempotencyClaim }).claim,
    );
    assert.equal(await generationCount(), before + 1);

    const retry = await generate('lost-response', body('lost'));
    assert.equal(retry.statusCode, 200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.body, JSON.stringify(answer), 'the exact committed answer');
    assert.equal(await generationCount(), before + 1, 'no second generation (no second charge)');
  });

  test('a request whose key was taken over commits nothing and answers 409', async () => {
    const payload = body('taken over');
    const slow = heldBy({ host: 'another-node', token: 'slow' });
    const claimed = await slow.claim(accountId, 'taken-over', await hashOf(payload));
    assert.equal(claimed.kind, 'claimed');
    skewMs += CLAIM_LEASE_MS + 1; // the slow holder stalled past its lease
    const winner = await generate('taken-over', payload);
    assert.equal(winner.statusCode, 200);

    // The stalled request wakes up and tries to commit its own generation: refused, rolled back.
    const account = await t.core.accountsRepository.findById(accountId);
    assert.ok(account);
    const before = await generationCount();
    await assert.rejects(
      t.core.generations.generate(account, payload, 'api', (claimed as { claim: IdempotencyClaim }).claim),
      // The core's refusal, as the edge answers it.
      (error) => error instanceof DomainError && apiErrorOf(error).type === 'idempotency_in_progress',
    );
    assert.equal(await generationCount(), before);
    const replay = await generate('taken-over', payload);
    assert.equal(replay.body, winner.body);
  });

  test('an upstream refusal undoes the generation and frees the key in one transaction', async () => {
    const payload = { prompt: 'x [[upstream_error]]', imageSize: '1K' };
    assertError(await generate('refused', payload), 500, 'upstream_error');
    const row = await t.core.resources.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('key', '=', 'refused')
      .executeTakeFirst();
    assert.equal(row, undefined);
  });
});
