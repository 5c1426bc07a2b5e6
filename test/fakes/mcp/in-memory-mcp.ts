// The MCP tools' test bench: a real MCP client over the SDK's in-memory transport, with a scripted
// Atelier client, a fake clock and a fake thumbnailer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AtelierClient, TaskRecord } from '../../../src/edges/client/atelier-client.js';
import { hmacTaskIdSeal } from '../../../src/edges/mcp/generation-tasks.js';
import { type CreateServerOptions, createServer } from '../../../src/edges/mcp/server.js';

/** The seal of the in-memory server's task ids (a fixed test key, one account). */
export const TEST_TASK_ID_SEAL = hmacTaskIdSeal(Buffer.alloc(32, 7), 'acc_test');

import type { PollingClock } from '../../../src/edges/mcp/task-polling.js';
import type { Thumbnailer } from '../../../src/edges/mcp/thumbnails.js';

function fakeClock(): PollingClock & { sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

const fakeThumbnailer: Thumbnailer = {
  render: async (sources) =>
    sources.map(({ url }) =>
      url.includes('broken')
        ? { ok: false, reason: 'could not download the image (HTTP 404)' }
        : {
            ok: true,
            thumbnail: {
              data: Buffer.from(`jpeg:${url}`).toString('base64'),
              mimeType: 'image/jpeg',
              width: 512,
              height: 512,
            },
          },
    ),
};

type Script = Partial<AtelierClient>;

export function scriptedClient(script: Script): AtelierClient {
  const refuse = () => {
    throw new Error('not scripted');
  };
  return {
    baseUrl: 'http://atelier.test',
    generate: refuse,
    getTask: refuse,
    getTasks: refuse,
    upload: refuse,
    history: refuse,
    versions: refuse,
    act: refuse,
    models: refuse,
    userStatus: refuse,
    ...script,
  } as AtelierClient;
}

export async function connect(
  client: AtelierClient,
  clock = fakeClock(),
  options: Partial<CreateServerOptions> = {},
) {
  const server = createServer(client, {
    clock,
    thumbnailer: fakeThumbnailer,
    taskIdSeal: TEST_TASK_ID_SEAL,
    ...options,
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const mcp = new Client({ name: 'test', version: '0' });
  await server.connect(serverTransport);
  await mcp.connect(clientTransport);
  await mcp.listTools(); // lets the client validate structured results against the output schemas
  return { mcp, clock, close: () => mcp.close() };
}

export function textOf(result: CallToolResult): string {
  return result.content
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text)
    .join('\n');
}

export function task(
  id: string,
  status: TaskRecord['status'],
  progress: number,
  extra: Partial<TaskRecord> = {},
): TaskRecord {
  return { task_id: id, status, progress, ...extra };
}
