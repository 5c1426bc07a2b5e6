/** A scripted webhook receiver on loopback for the webhook API tests, the reference verifier, and a wait for a condition. */
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { type LoopbackServer, startHttpServer } from '../fakes/outbound/loopback.js';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on loopback: records every request, and answers each path from its script
 * (one response per request, the last one repeating; 204 when the path has none).
 */
export async function startReceiver() {
  const received: Received[] = [];
  const script = new Map<string, Array<{ status: number; headers?: Record<string, string> }>>();
  const server: LoopbackServer = await startHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (path.startsWith('/hang')) return; // never answers: the attempt must time out
      const answers = script.get(path) ?? [];
      const next = answers.length > 1 ? answers.shift() : answers[0];
      res.writeHead(next?.status ?? 204, next?.headers ?? {});
      res.end();
    });
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    server,
    origin,
    received,
    /** Scripts a path's answers, e.g. [500, 500, 204]. */
    answer(path: string, ...answers: Array<number | { status: number; headers?: Record<string, string> }>) {
      script.set(
        path,
        answers.map((a) => (typeof a === 'number' ? { status: a } : a)),
      );
      return `${origin}${path}`;
    },
    at: (path: string) => received.filter((r) => r.path === path),
  };
}

/** Verifies one received request with the Standard Webhooks reference verifier; returns the payload. */
export function verify(secret: string, request: Received) {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(request.body, headers) as {
    type: string;
    timestamp: string;
    data: { task_id: string; status: string; progress: number; imageUrl?: string; error?: string };
  };
}

export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${what}: not in time`);
}
