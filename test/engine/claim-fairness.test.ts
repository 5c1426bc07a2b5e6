import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { isFinalStatus } from '../../src/base/domain/task-status.js';
import { systemClock } from '../../src/base/runtime/clock.js';
import type { Account } from '../../src/capabilities/accounts/accounts-repository.js';
import {
  createProviderRegistry,
  type ProviderRegistry,
} from '../../src/capabilities/providers/provider-registry.js';
import { type Core, createCore } from '../../src/core.js';
import type { Config } from '../../src/infra/config/config.js';
import { removeTestData } from '../support/test-database.js';
import { signedInCookie, TEST_ORIGIN } from '../support/website-session.js';
import { backlogConfig, seedBacklog } from './claim-fixtures.js';

// Fair turns where workers claim tasks (issue 39). One account's backlog of 5,000 images on the
// `local` renderer; another account's image, asked for through the API, through the website, on a
// node restarted (with another renderer latency) while the backlog waited in the store, and on a
// second node of the same store, starts within a few of the backlog's renders — not after the
// thousands of them that were claimable before it. Counted in renders (finished backlog tasks, as
// every node's task feed tells them), never in seconds.

const BACKLOG = 5_000;
/** Render slots per node (the renderer's default: one per core but one). */
const SLOTS = Math.max(1, availableParallelism() - 1);
/** Past this many backlog renders the light image is counted as starved (the measure stops). */
const STARVED = 150;
const PASSWORD = 'correct horse battery';

/** Every backlog task that ended, heard on the task feeds of the nodes given. */
function endedCounter(accountId: string) {
  const ended = new Set<string>();
  const stops: Array<() => void> = [];
  return {
    ended,
    listen(core: Core) {
      stops.push(
        core.taskEvents.subscribe(accountId, {
          onChange: ({ record }) => {
            if (isFinalStatus(record.status)) ended.add(record.task_id);
          },
          onResync: () => undefined,
        }),
      );
    },
    stop: () => {
      for (const stop of stops) stop();
    },
  };
}

/**
 * How many backlog tasks ended between the answer to the light account's request and its start
 * (leaving `queued`; on this renderer's short latency its first poll renders it, so that is its end).
 */
async function rendersBeforeStart(
  cores: Core[],
  backlog: ReturnType<typeof endedCounter>,
  lightAccountId: string,
  prepare: () => Promise<() => Promise<string>>,
): Promise<number> {
  const submit = await prepare();
  let started = () => {};
  const start = new Promise<void>((resolve) => {
    started = resolve;
  });
  let taskId: string | undefined;
  const seen = new Map<string, string>();
  const stops = cores.map((core) =>
    core.taskEvents.subscribe(lightAccountId, {
      onChange: ({ record }) => {
        seen.set(record.task_id, record.status);
        if (record.task_id === taskId && record.status !== 'queued') started();
      },
      onResync: () => undefined,
    }),
  );
  taskId = await submit();
  // Counted from the answer: the request's own work (a website request's session, its checks) is
  // the same whatever waits; what is measured is the wait for a turn.
  const before = backlog.ended.size;
  if ((seen.get(taskId) ?? 'queued') !== 'queued') started();
  const starved = setInterval(() => {
    if (backlog.ended.size - before > STARVED) started();
  }, 20);
  try {
    await start;
    return backlog.ended.size - before;
  } finally {
    clearInterval(starved);
    for (const stop of stops) stop();
  }
}

/** Resolves once three more backlog tasks ended: the backlog is rendering when the other accounts come. */
async function rendering(backlog: ReturnType<typeof endedCounter>): Promise<void> {
  const from = backlog.ended.size;
  while (backlog.ended.size < from + 3) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The providers of a node whose `local` renderer leaves its submits to the engine (no inline submit). */
function submittedByTheEngine(config: Config): ProviderRegistry {
  const registry = createProviderRegistry({ config, clock: systemClock });
  const local = registry.get('local');
  assert.ok(local);
  return {
    ...registry,
    get: (name) => (name === 'local' ? { ...local, submitsInline: false } : registry.get(name)),
  };
}

async function unfinishedOf(core: Core, accountId: string): Promise<number> {
  return (await core.tasks.listUnfinishedForAccount(accountId)).length;
}

test('local renderer: another account’s task behind a 5,000-task backlog starts within a few renders (API, website, after a restart, on a second node)', {
  timeout: 240_000,
}, async (t) => {
  const { config: first, env } = await backlogConfig({ latencyMs: 30 });
  const nodes: Array<{ core: Core; app?: FastifyInstance }> = [];
  const open = async (latencyMs: number, withApp: boolean, inline = true) => {
    const { config } = await backlogConfig({ latencyMs, env });
    const core = await createCore(config, {
      idlePollMs: 200,
      ...(inline ? {} : { providers: submittedByTheEngine(config) }),
    });
    const node = { core, ...(withApp ? { app: await buildApp(core) } : {}) };
    nodes.push(node);
    return node;
  };
  const close = async (node: { core: Core; app?: FastifyInstance }) => {
    await node.app?.close();
    await node.core.close(1000);
    nodes.splice(nodes.indexOf(node), 1);
  };
  try {
    // The backlog is stored by a node that leaves its submits to its engine (never started), in 313
    // requests, and marked submitted in one write as inline submits would leave it: 5,000 inline
    // submits in a row take a minute on PostgreSQL. Then the nodes under test start.
    const began = Date.now();
    const seeder = await open(30, false, false);
    const seeding = Date.now();
    const heavy = await seedBacklog(seeder.core, BACKLOG);
    await close(seeder);
    const a = await open(30, true);
    t.diagnostic(`${BACKLOG} backlog tasks submitted in ${Date.now() - seeding} ms`);
    const backlog = endedCounter(heavy.id);
    backlog.listen(a.core);
    a.core.engine.start();
    await rendering(backlog);

    const figures: Record<string, number> = {};
    const light = async (
      label: string,
      cores: Core[],
      submit: (account: Account) => Promise<() => Promise<string>>,
    ) => {
      const [core] = cores;
      assert.ok(core);
      const { account } = await core.accounts.create({
        email: `${label.replace(' ', '-')}-${Date.now()}@example.test`,
        password: PASSWORD,
        tier: 'pro',
      });
      const waiting = await unfinishedOf(core, heavy.id);
      const renders = await rendersBeforeStart(cores, backlog, account.id, () => submit(account));
      figures[label] = renders;
      t.diagnostic(
        `${label}: started after ${renders} backlog renders (${waiting} backlog tasks waiting; at ${Date.now() - began} ms)`,
      );
      assert.ok(waiting > BACKLOG - 1_000, `only ${waiting} backlog tasks were waiting`);
      return renders;
    };
    const apiImage = (core: Core) => async (account: Account) => async () => {
      const { task_ids } = await core.generations.generate(account, {
        prompt: 'light image',
        model: 'base-image-2',
        imageSize: '1K',
        count: 1,
      });
      return task_ids[0] as string;
    };
    // Signed in before the measure: a sign-in's password hash is CPU work of its own.
    const websiteImage = (app: FastifyInstance) => async (account: Account) => {
      const cookie = await signedInCookie(app, { email: account.email, password: PASSWORD });
      return () => submitOnWebsite(app, cookie);
    };
    const submitOnWebsite = async (app: FastifyInstance, cookie: string) => {
      const answer = await app.inject({
        method: 'POST',
        url: '/web/api/generate',
        headers: { cookie, origin: TEST_ORIGIN },
        payload: { prompt: 'light image from the website', model: 'base-image-2', imageSize: '1K' },
      });
      assert.equal(answer.statusCode, 200, answer.body);
      return (answer.json() as { task_ids: string[] }).task_ids[0] as string;
    };
    // One node: the render under way, the turn of the freed slot, the light image's own poll delay.
    const bound = 6 + 6 * SLOTS;
    assert.ok((await light('api', [a.core], apiImage(a.core))) <= bound);
    assert.ok((await light('website', [a.core], websiteImage(a.app as FastifyInstance))) <= bound);

    // A restart with the backlog in the store, the renderer's latency changed meanwhile.
    const closing = Date.now();
    await close(a);
    t.diagnostic(`node closed in ${Date.now() - closing} ms with the backlog in flight`);
    const b = await open(10, true);
    backlog.listen(b.core);
    b.core.engine.start();
    await rendering(backlog);
    assert.ok((await light('restarted', [b.core], websiteImage(b.app as FastifyInstance))) <= bound);

    // A second node on the same store: the light image asked on it is claimed by either node.
    const c = await open(10, false);
    backlog.listen(c.core);
    c.core.engine.start();
    assert.ok((await light('second node', [b.core, c.core], apiImage(c.core))) <= 2 * bound);
    t.diagnostic(
      `backlog renders before the light image started: ${JSON.stringify(figures)} (at ${Date.now() - began} ms)`,
    );
    backlog.stop();
  } finally {
    for (const node of [...nodes].reverse()) await close(node);
    await removeTestData(first);
  }
});
