// The SDK's own client over Streamable HTTP against the app's /mcp, with an API key.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function connectRemote(baseUrl: string, apiKey: string, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'atelier-remote-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}${path}`), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  return client;
}

/** A JSON-RPC POST to /mcp by hand, for what the SDK's client would not send. */
export function postMcp(
  baseUrl: string,
  headers: Record<string, string>,
  body: unknown,
  path = '/mcp',
): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'by-hand', version: '1.0.0' },
  },
};
