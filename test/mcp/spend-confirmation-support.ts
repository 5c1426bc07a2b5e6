// MCP clients that answer the server's spend confirmation (elicitation, form mode): the SDK's own
// Client with the elicitation capability, over Streamable HTTP or stdio.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';

/** A client that answers each confirmation with `answer()` and records what it was asked. */
/** The local renderer priced as a 4K image at $0.24 (4 of them: at most $0.96, the example). */
const catalogPath = join(mkdtempSync(join(tmpdir(), 'atelier-confirm-')), 'catalog.json');
writeFileSync(
  catalogPath,
  JSON.stringify({
    ...DEFAULT_CATALOG,
    models: DEFAULT_CATALOG.models.map((model) => ({
      ...model,
      price: { perImage: { '1K': 60_000, '2K': 120_000, '4K': 240_000 } },
    })),
  }),
);
export const pricedEnv = { ATELIER_CATALOG: catalogPath };

export interface AskedClient {
  client: Client;
  asked: string[];
  /** The person's answer; 'never': they do not answer. */
  answer: ElicitResult['action'] | 'never';
}

export async function askedClient(transport: Transport, elicitation = true): Promise<AskedClient> {
  const client = new Client(
    { name: 'atelier-confirm-test', version: '1.0.0' },
    elicitation ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  const asked: AskedClient = { client, asked: [], answer: 'accept' };
  if (elicitation) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.asked.push(request.params.message);
      if (asked.answer === 'never') return new Promise<never>(() => {});
      return { action: asked.answer, ...(asked.answer === 'accept' ? { content: {} } : {}) };
    });
  }
  await client.connect(transport);
  return asked;
}

/**
 * Streamable HTTP to `baseUrl`/mcp with an API key; the client's answers to the server's requests
 * (JSON-RPC responses) are POSTed to `answersTo` instead, as a load balancer may send them to
 * another node.
 */
export function remoteTransport(baseUrl: string, apiKey: string, answersTo = baseUrl): Transport {
  const isAnswer = (body: unknown) =>
    typeof body === 'string' && /"result"|"error"/.test(body) && !/"method"/.test(body);
  return new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    fetch: (url, init) => fetch(isAnswer(init?.body) ? `${answersTo}/mcp` : url, init),
  });
}
