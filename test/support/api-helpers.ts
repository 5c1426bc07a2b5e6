import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';

/** Bearer headers for a key. */
export const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

/** Asserts the spec's error shape, status and type; returns the message. */
export function assertError(
  response: { statusCode: number; json(): unknown; headers: Record<string, unknown> },
  status: number,
  type: string,
): string {
  const body = response.json() as { error?: { type?: unknown; message?: unknown } };
  assert.equal(response.statusCode, status, `status (body: ${JSON.stringify(body)})`);
  assert.ok(body.error, 'error body');
  assert.deepEqual(Object.keys(body as object), ['error']);
  assert.deepEqual(Object.keys(body.error).sort(), ['message', 'type']);
  assert.equal(body.error.type, type);
  assert.equal(typeof body.error.message, 'string');
  assert.ok((body.error.message as string).length > 0);
  return body.error.message as string;
}

interface TaskRecord {
  task_id: string;
  status: string;
  progress: number;
  imageUrl?: string;
  error?: string;
  bytes?: number;
}

/** POST /api/v1/generate as the key's account, asserting a 200; the task ids. */
export async function submitGenerate(
  app: FastifyInstance,
  apiKey: string,
  payload: Record<string, unknown>,
): Promise<string[]> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/generate',
    headers: bearer(apiKey),
    payload,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().task_ids as string[];
}

/** Polls a task through the API until it is final; returns every distinct record seen, in order. */
export async function pollUntilFinal(
  app: FastifyInstance,
  apiKey: string,
  taskId: string,
  timeoutMs = 20_000,
  onRecord?: (record: TaskRecord) => void,
): Promise<{ final: TaskRecord; seen: TaskRecord[] }> {
  const seen: TaskRecord[] = [];
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const response = await app.inject({
      method: 'GET',
      url: `/api/v1/tasks/${taskId}`,
      headers: bearer(apiKey),
    });
    assert.equal(response.statusCode, 200, response.body);
    const record = response.json() as TaskRecord;
    onRecord?.(record);
    const last = seen.at(-1);
    if (!last || last.status !== record.status || last.progress !== record.progress) seen.push(record);
    if (record.status === 'completed' || record.status === 'failed') return { final: record, seen };
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  throw new Error(`task ${taskId} did not finish in ${timeoutMs} ms; last: ${JSON.stringify(seen.at(-1))}`);
}

/** A small PNG made with sharp. */
export function makePng(width = 64, height = 48, color = { r: 200, g: 80, b: 40 }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();
}
