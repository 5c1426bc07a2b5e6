/**
 * What the engine tests across nodes share: a counting Replicate stand-in (real wire format), a
 * relay that can hold back the answer of an accepted create, and a wait for tasks to end that
 * listens to the task change feeds instead of polling.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { isFinalStatus } from '../../src/base/domain/task-status.js';
import type { ImageProvider } from '../../src/capabilities/providers/provider.js';
import type { TaskRow } from '../../src/capabilities/tasks/tasks-repository.js';
import type { Core } from '../../src/core.js';
import { type FakeReplicate, startFakeReplicate } from '../fakes/providers/fake-replicate.js';

export const TOKEN = 'r8_clusterToken0123456789abcdefgh';
/** The catalog entry the tests ask for: `flash2` is `google/nano-banana-2`, text at 1K. */
export const MODEL = 'flash2';
export const CATALOG = resolve(import.meta.dirname, '../../catalogs/replicate.json');

/** A Replicate stand-in serving the model behind `flash2`, with a seed input (reconcile matches on it). */
export function startCountingReplicate(): Promise<FakeReplicate> {
  return startFakeReplicate({
    token: TOKEN,
    pageSize: 50,
    models: [
      {
        name: 'google/nano-banana-2',
        version: 'f'.repeat(64),
        inputs: {
          prompt: { type: 'string' },
          aspect_ratio: { type: 'string', enum: ['1:1', '16:9'] },
          resolution: { type: 'string', enum: ['1K', '2K', '4K'] },
          seed: { type: 'integer', minimum: 0, maximum: 1_000_000 },
        },
      },
    ],
  });
}

/** The environment of a node whose Replicate calls go to `baseUrl` (its results are fetched from `fake`). */
export function replicateEnv(fake: FakeReplicate, baseUrl = fake.baseUrl): Record<string, string> {
  return {
    ATELIER_CATALOG: CATALOG,
    ATELIER_REPLICATE_API_TOKEN: TOKEN,
    ATELIER_REPLICATE_BASE_URL: baseUrl,
    ATELIER_UPLOAD_ALLOWED_HOSTS: new URL(fake.baseUrl).host,
    ATELIER_DEMO_ACCOUNT: 'false',
    LOG_LEVEL: 'silent',
  };
}

/** Accepted creates per prompt: more than one for a prompt is a duplicated submission. */
export function createsPerPrompt(fake: FakeReplicate): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { body } of fake.creates) {
    const prompt = String((body.input as Record<string, unknown>).prompt);
    counts.set(prompt, (counts.get(prompt) ?? 0) + 1);
  }
  return counts;
}

/** Watches the upstream calls made for each task by several engines: two at once is an overlap. */
export function overlapWatch() {
  const active = new Map<string, number>();
  const overlaps: string[] = [];
  const wrap = (provider: ImageProvider): ImageProvider => {
    const around =
      <A extends { taskId: string }, R>(call: (request: A) => Promise<R>) =>
      async (request: A): Promise<R> => {
        const now = (active.get(request.taskId) ?? 0) + 1;
        active.set(request.taskId, now);
        if (now > 1) overlaps.push(request.taskId);
        try {
          return await call(request);
        } finally {
          active.set(request.taskId, (active.get(request.taskId) ?? 1) - 1);
        }
      };
    return { ...provider, submit: around(provider.submit), poll: around(provider.poll) };
  };
  return { wrap, overlaps };
}

/**
 * A relay to the fake for one worker: forwards every call, except that the first create it sees
 * is forwarded (the upstream makes the prediction) and its answer is then never relayed — the
 * worker is left waiting on a submission the upstream did accept. `held` resolves at that moment.
 * The next create is kept on the wire: `late` resolves once it has arrived, and it reaches the
 * upstream only when `deliverLate()` is called (a request the worker sent just before it died,
 * which the upstream processes a moment later).
 */
export async function startHoldingRelay(target: string) {
  let onHeld: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    onHeld = resolve;
  });
  let onLate: () => void = () => {};
  const late = new Promise<void>((resolve) => {
    onLate = resolve;
  });
  let deliverLate: () => void = () => {};
  const delivery = new Promise<void>((resolve) => {
    deliverLate = resolve;
  });
  let holding = false;
  let keptLate = false;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const isCreate = req.method === 'POST' && /\/predictions$/.test(req.url ?? '');
    if (isCreate && holding && !keptLate) {
      keptLate = true;
      onLate();
      await delivery;
    }
    const answer = await fetch(`${target}${req.url}`, {
      method: req.method ?? 'GET',
      headers: {
        authorization: req.headers.authorization ?? '',
        ...(req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {}),
      },
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    if (isCreate && answer.status === 201 && !holding) {
      holding = true;
      onHeld();
      return;
    }
    res.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/json',
    });
    res.end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    held,
    late,
    deliverLate,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/**
 * Resolves with the rows of `taskIds` once every one has ended, hearing of changes from the feeds
 * of `cores` (one read up front for tasks that ended before, one on each feed resync).
 */
export async function allFinal(cores: Core[], accountId: string, taskIds: string[]): Promise<TaskRow[]> {
  const [reader] = cores;
  if (!reader) throw new Error('no core to read from');
  const pending = new Set(taskIds);
  let unsubscribes: Array<() => void> = [];
  await new Promise<void>((done, fail) => {
    const check = () => {
      if (pending.size === 0) done();
    };
    const reread = () =>
      reader.tasks.findManyForAccount(accountId, [...pending]).then((rows) => {
        for (const row of rows) if (isFinalStatus(row.status)) pending.delete(row.id);
        check();
      }, fail);
    unsubscribes = cores.map((core) =>
      core.taskEvents.subscribe(accountId, {
        onChange: ({ record }) => {
          if (isFinalStatus(record.status)) pending.delete(record.task_id);
          check();
        },
        onResync: reread,
      }),
    );
    void reread();
  });
  for (const unsubscribe of unsubscribes) unsubscribe();
  return reader.tasks.findManyForAccount(accountId, taskIds);
}
