import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { createAtelierClient } from '../../src/edges/client/atelier-client.js';
import { apiKeyTaskIdSeal } from '../../src/edges/mcp/generation-tasks.js';
import { createServer } from '../../src/edges/mcp/server.js';
import type { PollingClock } from '../../src/edges/mcp/task-polling.js';
import { startTestServer } from '../support/test-server.js';

// Property-based fuzzing of every MCP tool's input, through a real MCP client and server (the SDK's
// in-memory transport) against the real app: random values for each tool's own fields (right and
// wrong types, huge, empty, hostile strings) plus unknown fields. Every call must come back as a
// tool result (an error result with a message for bad input) or a protocol error for arguments the
// schema refuses — never a crash, a hang, a stack trace, or a 5xx from the app. FUZZ_RUNS (default
// 1500 in `npm test`) sets the HTTP fuzz's count; this one runs a tenth of it per tool.
const RUNS = Math.max(20, Math.round(Number(process.env.FUZZ_RUNS ?? 1500) / 10));
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

const TOOL_FIELDS: Record<string, string[]> = {
  generate_image: [
    'prompt',
    'model',
    'mode',
    'aspect',
    'quality',
    'imageSize',
    'count',
    'seed',
    'imageUrls',
    'quote_id',
    'wait',
  ],
  quote_image: [
    'prompt',
    'model',
    'mode',
    'aspect',
    'quality',
    'imageSize',
    'count',
    'seed',
    'imageUrls',
    'work_id',
  ],
  get_task: ['task_id', 'wait'],
  batch_get_tasks: ['task_ids', 'wait'],
  upload_reference_image: ['source_url', 'path'],
  list_my_generations: ['page', 'limit'],
  get_account_status: [],
  refine_image: [
    'work_id',
    'instruction',
    'model',
    'aspect',
    'quality',
    'imageSize',
    'seed',
    'quote_id',
    'wait',
  ],
  act_on_image: ['id', 'action', 'scale', 'strength', 'factor', 'aspect', 'seed', 'count', 'model', 'wait'],
  list_versions: ['work_id'],
  list_models: ['model'],
};

/** Waits cost nothing: the tools' polling runs on this clock. */
function instantClock(): PollingClock {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  };
}

const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '../../etc/passwd',
    '/etc/passwd',
    '~/.ssh/id_rsa',
    'http://127.0.0.1:1/x.png',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'tsk_'.padEnd(300, 'x'),
    'x'.repeat(9000),
    '[[fail]]',
    '[[upstream_error]]',
    '{"$ne":null}',
  ),
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.constantFrom(0, -1, 1e308, Number.NaN, 2 ** 53, true, false, null),
  fc.array(hostileString, { maxLength: 25 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

function argumentsFor(fields: string[]): fc.Arbitrary<Record<string, unknown>> {
  const known =
    fields.length > 0
      ? fc
          .subarray(fields)
          .chain((chosen) => fc.tuple(...chosen.map((f) => fc.tuple(fc.constant(f), anyValue))))
      : fc.constant([]);
  return fc
    .tuple(known, fc.dictionary(fc.string({ maxLength: 8 }), anyValue, { maxKeys: 2 }))
    .map(([pairs, extra]) => ({ ...extra, ...Object.fromEntries(pairs as Array<[string, unknown]>) }));
}

describe('MCP tools under fuzzed input', () => {
  let atelier: Awaited<ReturnType<typeof startTestServer>>;
  let client: Client;
  const serverErrors: string[] = [];

  before(async () => {
    atelier = await startTestServer({ env: { ATELIER_LOCAL_LATENCY_MS: '50' } });
    // Every answer the app gives the tools is watched: none may be a 5xx but an upstream failure.
    const watchedFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (response.status >= 500) {
        // A prompt with the [[upstream_error]] test marker is a simulated upstream failure: a
        // legitimate 500 upstream_error (DESIGN.md §3). Anything else is a bug.
        const type = ((await response.clone().json()) as { error?: { type?: string } }).error?.type;
        if (type !== 'upstream_error') serverErrors.push(`${response.status} ${type} ${String(input)}`);
      }
      return response;
    };
    const server = createServer(
      createAtelierClient({ baseUrl: atelier.baseUrl, apiKey: atelier.apiKey, fetch: watchedFetch }),
      { clock: instantClock(), taskIdSeal: apiKeyTaskIdSeal(atelier.apiKey) },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'atelier-fuzz', version: '0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  });
  after(async () => {
    await client?.close();
    await atelier?.close();
  });

  test('every tool answers every input with a result or a protocol error, never a crash', async () => {
    const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
    assert.deepEqual(listed, Object.keys(TOOL_FIELDS).sort(), 'the fuzz covers every tool');
    const outcomes = { results: 0, errorResults: 0, protocolErrors: 0 };
    for (const [name, fields] of Object.entries(TOOL_FIELDS)) {
      await fc.assert(
        fc.asyncProperty(argumentsFor(fields), async (args) => {
          let result: CallToolResult;
          try {
            result = (await client.callTool({ name, arguments: args })) as CallToolResult;
          } catch (error) {
            // The SDK refuses arguments its schema rejects as a JSON-RPC error: a clear answer too.
            const message = (error as Error).message;
            assert.match(message, /MCP error -32602|Invalid arguments|invalid/i, message);
            outcomes.protocolErrors++;
            return;
          }
          const text = result.content
            .filter((block) => block.type === 'text')
            .map((block) => (block as { text: string }).text)
            .join('\n');
          if (result.isError) {
            outcomes.errorResults++;
            assert.ok(text.trim().length > 0, `${name}: an error result says why`);
          } else outcomes.results++;
          assert.doesNotMatch(text, /\n\s+at .+\(.+:\d+:\d+\)/, `${name}: no stack trace`);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }
    const status = (await client.callTool({ name: 'get_account_status', arguments: {} })) as CallToolResult;
    assert.ok(!status.isError, 'the server still answers afterwards');
    assert.deepEqual(serverErrors, [], 'the app never answered 5xx');
    console.log(`# mcp fuzz seed ${SEED}: ${RUNS} calls per tool, ${JSON.stringify(outcomes)}`);
  });
});
