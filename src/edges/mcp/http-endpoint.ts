import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createAtelierClient } from '../client/atelier-client.js';
import { type AnswerStore, answersIn, createAnswerRelay } from './answer-relay.js';
import type { TaskIdSeal } from './generation-tasks.js';
import { type InAppDispatch, inAppFetch } from './in-app-fetch.js';

export { createAnswerStore } from './answer-relay.js';

/**
 * The MCP server and its transport, loaded at the first /mcp request (issue 48): the SDK's server,
 * the MCP Apps extension and the tools' schemas are a fifth of the modules a start would load, and a
 * node that serves no MCP client never needs them.
 */
let mcpModules:
  | Promise<
      [typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('./server.js')]
    >
  | undefined;
const loadMcp = () =>
  (mcpModules ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./server.js'),
  ]));

export const MCP_PATH = '/mcp';
/** The same endpoint with the read tools only, whatever the credential (docs/mcp.md, "Read-only endpoint"). */
export const MCP_READONLY_PATH = '/mcp/readonly';

export interface McpEndpointOptions {
  /** Atelier's public base URL: its origin is the one browser Origin accepted, its /files the images. */
  publicBaseUrl: string;
  /**
   * Checks the caller's `Authorization: Bearer` (an API key, or an OAuth access token issued for
   * /mcp); throws the API's 401 error (missing, malformed, unknown). Answers the key the tools'
   * in-app calls send to /api/v1, and what to do when the MCP request ends.
   */
  authenticate: (request: FastifyRequest) => Promise<McpCredential>;
  /**
   * When sign-in is offered: the protected-resource metadata's URL (RFC 9728) and the scope to ask
   * for, which a 401 names in `WWW-Authenticate` (how an MCP client finds the authorization server).
   */
  signIn?: { resourceMetadataUrl: string; scope: string } | undefined;
  /** Hands a request to this same app (Fastify's inject): the tools' API calls and file reads. */
  dispatch: InAppDispatch;
  /** The seal of MCP task ids for an account (an HMAC under a key derived from the master key). */
  taskIdSeal: (accountId: string) => TaskIdSeal;
  /** Where answers to the server's requests (an elicitation) POSTed to another node wait (the store). */
  answers: AnswerStore;
  /** How long a tool call waits for the person's spend confirmation (default CONFIRM_TIMEOUT_MS, 5 min). */
  confirmTimeoutMs?: number;
}

/** What an authenticated /mcp request acts with. */
export interface McpCredential {
  /** The key the tools' in-app calls carry. */
  apiKey: string;
  /** The account it acts as (MCP task ids are bound to it). */
  accountId: string;
  /** An API key, or a sign-in grant (an OAuth access token): which switch of spend confirmation applies. */
  kind: 'api_key' | 'sign_in';
  /** Called when the MCP request ends (a credential opened for the request alone is closed). */
  release?: () => void;
}

const credentials = new WeakMap<FastifyRequest, McpCredential>();

/** RFC 6750 §3 and the MCP authorization spec: what a 401 from /mcp says about the scheme it wants. */
function bearerChallenge(request: FastifyRequest, signIn: McpEndpointOptions['signIn']): string {
  const parts = ['Bearer realm="atelier"'];
  if (signIn) parts.push(`resource_metadata="${signIn.resourceMetadataUrl}"`, `scope="${signIn.scope}"`);
  // No credentials: no error code (RFC 6750 §3.1); a credential that failed: invalid_token.
  if (request.headers.authorization !== undefined) parts.push('error="invalid_token"');
  return parts.join(', ');
}

/**
 * MCP over Streamable HTTP at /mcp (spec 2025-11-25), stateless: every POST builds its own MCP server
 * and transport (`sessionIdGenerator: undefined`) over a client whose requests go into this same app
 * with the caller's key, so any api node behind a load balancer answers any request, and no session
 * id exists to be mistaken for authentication. MCP tasks survive across nodes because their ids name
 * Atelier's own tasks (src/edges/mcp/generation-tasks.ts); a client's answer to the server's request
 * (spend confirmation) reaches the waiting call on any node (answer-relay.ts). GET (a server-initiated
 * stream) and DELETE (a session's end) are 405: there is no session to stream on or to end.
 * /mcp/readonly is the same with the read tools only (createServer's readOnly), behind the same
 * authentication: a token issued for /mcp serves it too (the resource /mcp covers its sub-path, as
 * RFC 9728 clients check).
 */
export async function mcpEndpoint(app: FastifyInstance, options: McpEndpointOptions): Promise<void> {
  const allowedOrigin = new URL(options.publicBaseUrl).origin;
  const relay = createAnswerRelay({ store: options.answers });

  // Security (the transport's rules): a browser page on another origin must not drive the endpoint
  // through the user's network (DNS rebinding). No Origin (agents, CLIs, servers) is allowed.
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined || origin === allowedOrigin) return;
    return reply.code(403).send({
      error: {
        type: 'forbidden',
        message: `Origin ${origin} may not call ${request.routeOptions.url ?? MCP_PATH}; only ${allowedOrigin} may`,
      },
    });
  });
  app.addHook('onRequest', async (request) => {
    credentials.set(request, await options.authenticate(request));
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401) {
      reply.header('www-authenticate', bearerChallenge(request, options.signIn));
    }
    return payload;
  });
  app.addHook('onResponse', async (request) => {
    credentials.get(request)?.release?.();
  });

  // JSON-RPC of the MCP spec, not REST operations: left out of the OpenAPI document (docs/mcp.md).
  const hidden = { schema: { hide: true } };
  const fullEndpoint = new URL(`${options.publicBaseUrl}${MCP_PATH}`).href;
  app.post(MCP_PATH, hidden, (request, reply) => serveMcp(request, reply, { options, relay }, undefined));
  app.post(MCP_READONLY_PATH, hidden, (request, reply) =>
    serveMcp(request, reply, { options, relay }, { fullEndpoint }),
  );

  const notAllowed = async (request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({
        error: {
          type: 'method_not_allowed',
          message: `${request.routeOptions.url ?? MCP_PATH} is stateless: POST each JSON-RPC message; there is no session stream to GET or DELETE`,
        },
      });
  for (const path of [MCP_PATH, MCP_READONLY_PATH]) {
    app.get(path, hidden, notAllowed);
    app.delete(path, hidden, notAllowed);
  }
}

/** One POST: a server (the full one, or the read-only one) and a transport for this request alone. */
async function serveMcp(
  request: FastifyRequest,
  reply: FastifyReply,
  { options, relay }: { options: McpEndpointOptions; relay: ReturnType<typeof createAnswerRelay> },
  readOnly: { fullEndpoint: string } | undefined,
): Promise<void> {
  const credential = credentials.get(request);
  if (!credential) throw new Error('authenticated request without a credential');
  const { apiKey, accountId } = credential;
  // An answer to a request of ours (the person's confirmation): handed to the call that waits for it.
  const answers = answersIn(request.body);
  if (answers) {
    await relay.receive(answers, accountId);
    return reply.code(202).send();
  }
  const fetchInApp = inAppFetch({
    publicBaseUrl: options.publicBaseUrl,
    dispatch: options.dispatch,
    remoteAddress: request.ip,
    // The caller's W3C traceparent as sent (one header; checked where the API reads it).
    traceparent: typeof request.headers.traceparent === 'string' ? request.headers.traceparent : undefined,
  });
  const [{ StreamableHTTPServerTransport }, { createServer }] = await loadMcp();
  const client = createAtelierClient({ baseUrl: options.publicBaseUrl, apiKey, fetch: fetchInApp });
  const server = createServer(client, {
    taskIdSeal: options.taskIdSeal(accountId),
    fetchFile: fetchInApp,
    filesBaseUrl: options.publicBaseUrl,
    localFiles: false,
    ...(readOnly ? { readOnly } : {}),
    spendConfirmation: {
      credential: credential.kind,
      ...(options.confirmTimeoutMs === undefined ? {} : { timeoutMs: options.confirmTimeoutMs }),
    },
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const stopWaiting = relay.bind(transport, accountId);
  // The transport writes the answer (JSON, or an event stream with progress) on the raw response.
  reply.hijack();
  reply.raw.on('close', () => {
    stopWaiting();
    credential.release?.();
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
}
