import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createAtelierClient } from '../client/atelier-client.js';
import { type InAppDispatch, inAppFetch } from './in-app-fetch.js';
import { createServer } from './server.js';

export const MCP_PATH = '/mcp';

export interface McpEndpointOptions {
  /** Atelier's public base URL: its origin is the one browser Origin accepted, its /files the images. */
  publicBaseUrl: string;
  /**
   * Checks the caller's `Authorization: Bearer <API key>`; throws the API's 401 error (missing,
   * malformed or unknown key). The composition root passes the API's own key check.
   */
  authenticate: (request: FastifyRequest) => Promise<void>;
  /** Hands a request to this same app (Fastify's inject): the tools' API calls and file reads. */
  dispatch: InAppDispatch;
}

const bearerPattern = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i;

/**
 * MCP over Streamable HTTP at /mcp (spec 2025-11-25), stateless: every POST builds its own MCP server
 * and transport (`sessionIdGenerator: undefined`) over a client whose requests go into this same app
 * with the caller's key, so any api node behind a load balancer answers any request, and no session
 * id exists to be mistaken for authentication. MCP tasks survive across nodes because their ids name
 * Atelier's own tasks (src/mcp/generation-tasks.ts). GET (a server-initiated stream) and DELETE (a
 * session's end) are 405: there is no session to stream on or to end.
 */
export async function mcpEndpoint(app: FastifyInstance, options: McpEndpointOptions): Promise<void> {
  const allowedOrigin = new URL(options.publicBaseUrl).origin;

  // Security (the transport's rules): a browser page on another origin must not drive the endpoint
  // through the user's network (DNS rebinding). No Origin (agents, CLIs, servers) is allowed.
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined || origin === allowedOrigin) return;
    return reply.code(403).send({
      error: {
        type: 'forbidden',
        message: `Origin ${origin} may not call ${MCP_PATH}; only ${allowedOrigin} may`,
      },
    });
  });
  app.addHook('onRequest', async (request) => {
    await options.authenticate(request);
  });
  // RFC 6750 and the MCP authorization spec: a 401 names the scheme the endpoint wants.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode === 401) {
      reply.header('www-authenticate', 'Bearer realm="atelier", error="invalid_token"');
    }
    return payload;
  });

  // JSON-RPC of the MCP spec, not REST operations: left out of the OpenAPI document (docs/mcp.md).
  const hidden = { schema: { hide: true } };
  app.post(MCP_PATH, hidden, async (request, reply) => {
    const apiKey = bearerPattern.exec(request.headers.authorization ?? '')?.[1];
    if (!apiKey) throw new Error('authenticated request without a bearer key');
    const fetchInApp = inAppFetch({
      publicBaseUrl: options.publicBaseUrl,
      dispatch: options.dispatch,
      remoteAddress: request.ip,
    });
    const client = createAtelierClient({ baseUrl: options.publicBaseUrl, apiKey, fetch: fetchInApp });
    const server = createServer(client, {
      fetchFile: fetchInApp,
      filesBaseUrl: options.publicBaseUrl,
      localFiles: false,
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // The transport writes the answer (JSON, or an event stream with progress) on the raw response.
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ err: error }, 'mcp request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }),
        );
      }
    }
  });

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({
        error: {
          type: 'method_not_allowed',
          message: `${MCP_PATH} is stateless: POST each JSON-RPC message; there is no session stream to GET or DELETE`,
        },
      });
  app.get(MCP_PATH, hidden, notAllowed);
  app.delete(MCP_PATH, hidden, notAllowed);
}
