/**
 * A fault-injecting loopback relay in front of a fake upstream: it forwards each request to the
 * fake (which keeps speaking the provider's real wire format) unless a seeded draw decides on a
 * fault — a 5xx, a connection that never answers, a 429 burst with `Retry-After`, a malformed body
 * — and serves every result file with a 404 the first time it is asked for. Faults that matter for
 * retry safety happen on both sides of the upstream's work: a 502/504, a hang or a malformed body
 * may come after the request was forwarded (the upstream did the work, its answer was lost).
 *
 * Every fault is counted by kind and, through `attribute`, by the task it hit.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChaosPlan {
  /** Share of API calls answered 500/502/503/504 (502/504 after forwarding, the others before). */
  serverErrorRate: number;
  /** Share of API calls never answered (half of them after forwarding). */
  hangRate: number;
  /** Share of API calls forwarded and then answered with a truncated body. */
  malformedRate: number;
  /** A burst of 429s starts at every `burstEvery`-th API call… */
  burstEvery: number;
  /** …and answers this many calls in a row. */
  burstLength: number;
  /** `Retry-After` of the 429s, in seconds. */
  retryAfterSeconds: number;
}

export type FaultKind = '5xx' | 'hang' | '429' | 'malformed' | 'result 404';

export interface RelayedCall {
  method: string;
  path: string;
  body: Buffer;
  fault: FaultKind | null;
}

export interface ChaosRelay {
  baseUrl: string;
  /** Faults injected, by kind. */
  faults: Record<FaultKind, number>;
  /** Every call, in arrival order, with the fault it met. */
  calls: RelayedCall[];
  /** The calls of each task, as `attribute` names them (calls it names no task for are left out). */
  perTask(attribute: (call: RelayedCall) => string | undefined): Map<string, RelayedCall[]>;
  /** Faults start once armed; before that every call is forwarded untouched. */
  arm(armed?: boolean): void;
  /** While held, every API call is a 429 with `Retry-After` (one long burst); results still pass. */
  hold(held: boolean): void;
  close(): Promise<void>;
}

/** mulberry32: a small seeded generator, so a run's fault sequence can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Decision =
  | { kind: 'forward' }
  | { kind: 'refuse'; status: number; fault: FaultKind; headers?: Record<string, string> }
  | { kind: 'forward-then'; after: 'hang' | 'malformed' | 502 | 504 }
  | { kind: 'hang' };

/** Starts a relay to `target` (an origin) with `plan`; result files are paths under `/files/`. */
export async function startChaosRelay(target: string, plan: ChaosPlan, seed = 12345): Promise<ChaosRelay> {
  const random = seeded(seed);
  const faults: Record<FaultKind, number> = { '5xx': 0, hang: 0, '429': 0, malformed: 0, 'result 404': 0 };
  const calls: RelayedCall[] = [];
  const filesSeen = new Set<string>();
  let armed = false;
  let held = false;
  let apiCalls = 0;
  let burstLeft = 0;
  let baseUrl = '';

  const tooMany = (): Decision => ({
    kind: 'refuse',
    status: 429,
    fault: '429',
    headers: { 'retry-after': String(plan.retryAfterSeconds) },
  });

  function decide(method: string, path: string): Decision {
    if (held && !path.startsWith('/files/')) return tooMany();
    if (!armed) return { kind: 'forward' };
    if (path.startsWith('/files/')) {
      if (method !== 'GET' || filesSeen.has(path)) return { kind: 'forward' };
      filesSeen.add(path);
      return { kind: 'refuse', status: 404, fault: 'result 404' };
    }
    apiCalls += 1;
    if (burstLeft === 0 && apiCalls % plan.burstEvery === 0) burstLeft = plan.burstLength;
    if (burstLeft > 0) {
      burstLeft -= 1;
      return tooMany();
    }
    const r = random();
    const afterForward = random() < 0.5;
    if (r < plan.serverErrorRate) {
      if (afterForward) return { kind: 'forward-then', after: random() < 0.5 ? 502 : 504 };
      return { kind: 'refuse', status: random() < 0.5 ? 500 : 503, fault: '5xx' };
    }
    if (r < plan.serverErrorRate + plan.hangRate)
      return afterForward ? { kind: 'forward-then', after: 'hang' } : { kind: 'hang' };
    if (r < plan.serverErrorRate + plan.hangRate + plan.malformedRate)
      return { kind: 'forward-then', after: 'malformed' };
    return { kind: 'forward' };
  }

  async function forward(req: IncomingMessage, body: Buffer) {
    const headers: Record<string, string> = {};
    for (const name of ['authorization', 'content-type', 'cancel-after']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await fetch(`${target}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body: new Uint8Array(body) } : {}),
    });
    const raw = Buffer.from(await answer.arrayBuffer());
    const contentType = answer.headers.get('content-type') ?? 'application/octet-stream';
    // URLs in JSON answers (result files, cursors) point back through the relay.
    const text = contentType.includes('json') ? raw.toString('utf8').replaceAll(target, baseUrl) : undefined;
    return { status: answer.status, contentType, body: text === undefined ? raw : Buffer.from(text) };
  }

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://relay').pathname;
    const decision = decide(method, path);
    const call: RelayedCall = { method, path, body, fault: null };
    calls.push(call);
    const count = (fault: FaultKind) => {
      call.fault = fault;
      faults[fault] += 1;
    };
    try {
      if (decision.kind === 'hang') {
        count('hang');
        return;
      }
      if (decision.kind === 'refuse') {
        count(decision.fault);
        res.writeHead(decision.status, { 'content-type': 'application/json', ...decision.headers });
        res.end(
          JSON.stringify({ title: 'chaos', detail: `injected ${decision.status}`, status: decision.status }),
        );
        return;
      }
      const answer = await forward(req, body);
      if (decision.kind === 'forward-then') {
        if (decision.after === 'hang') {
          count('hang');
          return;
        }
        if (decision.after === 'malformed') {
          count('malformed');
          res.writeHead(answer.status, { 'content-type': answer.contentType });
          res.end(answer.body.subarray(0, Math.floor(answer.body.length / 2)));
          return;
        }
        count('5xx');
        res.writeHead(decision.after, { 'content-type': 'text/html' });
        res.end(`<html><body>${decision.after} Bad Gateway</body></html>`);
        return;
      }
      res.writeHead(answer.status, { 'content-type': answer.contentType });
      res.end(answer.body);
    } catch (error) {
      res.writeHead(599, { 'content-type': 'text/plain' });
      res.end(`relay bug: ${(error as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    faults,
    calls,
    perTask(attribute) {
      const byTask = new Map<string, RelayedCall[]>();
      for (const call of calls) {
        const task = attribute(call);
        if (task !== undefined) byTask.set(task, [...(byTask.get(task) ?? []), call]);
      }
      return byTask;
    },
    arm(on = true) {
      armed = on;
    },
    hold(on) {
      held = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
