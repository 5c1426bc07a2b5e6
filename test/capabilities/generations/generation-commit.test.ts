import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Account } from '../../../src/capabilities/accounts/accounts-repository.js';
import {
  CLAIM_LEASE_MS,
  createIdempotencyRepository,
  type IdempotencyClaim,
} from '../../../src/capabilities/idempotency/idempotency-repository.js';
import { createProcessOwner, currentProcessIdentity } from '../../../src/infra/jobs/process-owner.js';
import { createTestApp, type TestApp } from '../../support/test-server.js';

const CALLBACK_URL = 'http://127.0.0.1:9/hook';

/**
 * A generation, its webhook callback (recorded by the webhooks capability) and its Idempotency-Key
 * answer commit in one transaction: all of them, or none.
 */
describe('generation commit with its webhook callback', () => {
  let t: TestApp;
  let account: Account;
  let skewMs = 0;
  const clock = { now: () => Date.now() + skewMs };

  before(async () => {
    // The callback's loopback address is allowed (never contacted: the tasks are not run here).
    t = await createTestApp({
      env: { ATELIER_UPLOAD_ALLOWED_HOSTS: '127.0.0.1:9' },
      overrides: { clock },
      startEngine: false,
    });
    const { id } = await t.createAccount();
    const found = await t.core.accountsRepository.findById(id);
    assert.ok(found);
    account = found;
  });
  after(() => t.close());

  const callbacksOf = (generationIds: string[]) =>
    t.core.resources.db
      .selectFrom('webhook_callbacks')
      .selectAll()
      .where('generation_id', 'in', generationIds)
      .execute();
  const count = async (table: 'generations' | 'webhook_callbacks') =>
    Number(
      (
        await t.core.resources.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', account.id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('a generate with a callbackUrl records it for its generation', async () => {
    const answer = await t.core.generations.generate(account, {
      prompt: 'a harbour',
      imageSize: '1K',
      callbackUrl: CALLBACK_URL,
    });
    const task = await t.core.tasks.findForAccount(account.id, answer.task_ids[0] as string);
    assert.ok(task);
    const callbacks = await callbacksOf([task.generation_id]);
    assert.deepEqual(
      callbacks.map((c) => ({ url: c.url, account_id: c.account_id })),
      [{ url: CALLBACK_URL, account_id: account.id }],
    );
  });

  test('when the Idempotency-Key answer cannot commit, neither the generation nor its callback does', async () => {
    const stalled = createIdempotencyRepository({
      db: t.core.resources.db,
      clock,
      owner: createProcessOwner({ ...currentProcessIdentity(), host: 'another-node', token: 'stalled' }),
    });
    const claimed = await stalled.claim(account.id, 'stalled-key', 'hash');
    assert.equal(claimed.kind, 'claimed');
    skewMs += CLAIM_LEASE_MS + 1; // the stalled holder's lease ran out: another takes the key
    assert.equal((await t.core.idempotency.claim(account.id, 'stalled-key', 'hash')).kind, 'claimed');

    const generationsBefore = await count('generations');
    const callbacksBefore = await count('webhook_callbacks');
    await assert.rejects(
      t.core.generations.generate(
        account,
        { prompt: 'too late', imageSize: '1K', callbackUrl: CALLBACK_URL },
        'api',
        (claimed as { claim: IdempotencyClaim }).claim,
      ),
    );
    assert.equal(await count('generations'), generationsBefore);
    assert.equal(await count('webhook_callbacks'), callbacksBefore, 'the callback rolled back with it');
  });
});
