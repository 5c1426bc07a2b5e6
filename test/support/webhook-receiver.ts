import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One callback the receiver answered 204, with what its Standard Webhooks signature said. */
export interface ReceivedCallback {
  webhookId: string;
  type: string;
  taskId: string;
  status: string;
  /** The signature verified with the account's secret (and the timestamp is recent). */
  verified: boolean;
}

/**
 * A loopback webhook receiver: it answers every callback 204 and verifies its signature with the
 * official `standardwebhooks` library, or holds one request unanswered (a crash mid-delivery).
 */
export async function startWebhookReceiver() {
  const received: ReceivedCallback[] = [];
  const events = new EventEmitter();
  const held: ServerResponse[] = [];
  let secret = '';
  let holdNext: ((request: IncomingMessage) => void) | undefined;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (holdNext) {
        const onHeld = holdNext;
        holdNext = undefined;
        held.push(response);
        onHeld(request);
        return;
      }
      const headers = {
        'webhook-id': String(request.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
      };
      let verified = true;
      try {
        new Webhook(secret).verify(body, headers);
      } catch {
        verified = false;
      }
      const event = JSON.parse(body) as { type: string; data: { task_id: string; status: string } };
      received.push({
        webhookId: headers['webhook-id'],
        type: event.type,
        taskId: event.data.task_id,
        status: event.data.status,
        verified,
      });
      response.writeHead(204).end();
      events.emit('callback');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/hooks/atelier`,
    received,
    /** The account's signing secret (`whsec_…`), for verification. */
    setSecret(value: string) {
      secret = value;
    },
    /** Resolves when the next callback arrives; that one is never answered (its sender is about to die). */
    holdNextCallback(): Promise<void> {
      return new Promise((resolve) => {
        holdNext = () => resolve();
      });
    },
    /** Resolves after the callback that makes `done()` true (or now); rejects after `timeoutMs`. */
    waitFor(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
      if (done()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!done()) return;
          clearTimeout(timer);
          events.off('callback', check);
          resolve();
        };
        const timer = setTimeout(() => {
          events.off('callback', check);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs);
        events.on('callback', check);
      });
    },
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
