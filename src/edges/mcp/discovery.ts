import type { FastifyInstance } from 'fastify';
import { MCP_PATH, MCP_READONLY_PATH } from './http-endpoint.js';
import { ATELIER_ICON_SVG } from './icons.js';
import { SERVER_VERSION } from './server-version.js';

/** The registry's server.json format this document follows (its published JSON Schema). */
export const SERVER_SCHEMA_URL =
  'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
/**
 * The server's name in the MCP registry (reverse DNS of a namespace the publisher proves: a GitHub
 * account or organisation for io.github.*). packages/mcp/package.json's `mcpName` says the same.
 */
export const REGISTRY_NAME = 'io.github.atelier/mcp';
/** The npm package of the stdio server (packages/mcp). */
export const NPM_PACKAGE = '@atelier/mcp';
export const DISCOVERY_PATH = '/.well-known/mcp/server.json';
export const ICON_PATH = '/mcp/icon.svg';
/** The extension metadata key the registry's schema reserves for what a publisher adds. */
const PUBLISHER_META = 'io.modelcontextprotocol.registry/publisher-provided';

const DESCRIPTION = 'Generate, refine, upscale and price images on your Atelier account, with live tasks';
const TITLE = 'Atelier image generation';

/** How a remote endpoint authenticates, as the document states it. */
export interface DiscoverySignIn {
  /** The protected-resource metadata (RFC 9728) of /mcp, where an OAuth client starts. */
  resourceMetadataUrl: string;
  scope: string;
}

type Input = { description: string; isRequired?: boolean; isSecret?: boolean; default?: string };

/** The Authorization header a remote takes: required when there is no sign-in. */
function authorizationHeader(signIn: boolean) {
  return {
    name: 'Authorization',
    description: signIn
      ? 'Bearer <an Atelier API key>; or leave it out and sign in with OAuth (the server answers 401 with its metadata)'
      : 'Bearer <an Atelier API key>',
    isRequired: !signIn,
    isSecret: true,
  };
}

/** The two remote endpoints at `base` (a URL, or a template such as https://{host}). */
function remotesAt(base: string, signIn: boolean, variables?: Record<string, Input>) {
  return [MCP_PATH, MCP_READONLY_PATH].map((path) => ({
    type: 'streamable-http',
    url: `${base}${path}`,
    headers: [authorizationHeader(signIn)],
    ...(variables ? { variables } : {}),
  }));
}

/**
 * The document a deployment answers at /.well-known/mcp/server.json: the registry's server.json
 * shape (so one parser reads both), naming this deployment's own endpoints, its icon, and how it
 * authenticates (in the publisher's metadata: the format has no field for it yet).
 */
export function deploymentServerCard(publicBaseUrl: string, signIn: DiscoverySignIn | undefined) {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    $schema: SERVER_SCHEMA_URL,
    name: REGISTRY_NAME,
    title: TITLE,
    description: DESCRIPTION,
    version: SERVER_VERSION,
    websiteUrl: `${base}/`,
    icons: [{ src: `${base}${ICON_PATH}`, mimeType: 'image/svg+xml', sizes: ['any'] }],
    remotes: remotesAt(base, signIn !== undefined),
    _meta: {
      [PUBLISHER_META]: {
        protocolVersion: '2025-11-25',
        endpoints: { full: `${base}${MCP_PATH}`, readOnly: `${base}${MCP_READONLY_PATH}` },
        authentication: {
          apiKey: 'Authorization: Bearer <API key>',
          oauth: signIn
            ? { protectedResourceMetadata: signIn.resourceMetadataUrl, scopes: [signIn.scope] }
            : null,
        },
        documentation: `${base}/docs`,
      },
    },
  };
}

/**
 * The entry published to the MCP registry (packages/mcp/server.json): the npm stdio package, and the
 * remote endpoints of any deployment, whose host the person fills in (a URL template variable).
 */
export function registryEntry(packageVersion: string) {
  const host: Input = {
    description: "Your Atelier's host name, as in its public base URL (e.g. atelier.example.com)",
    isRequired: true,
  };
  return {
    $schema: SERVER_SCHEMA_URL,
    name: REGISTRY_NAME,
    title: TITLE,
    description: DESCRIPTION,
    version: packageVersion,
    packages: [
      {
        registryType: 'npm',
        registryBaseUrl: 'https://registry.npmjs.org',
        identifier: NPM_PACKAGE,
        version: packageVersion,
        transport: { type: 'stdio' },
        environmentVariables: [
          {
            name: 'ATELIER_API_KEY',
            description: "The account's Atelier API key",
            isRequired: true,
            isSecret: true,
          },
          {
            name: 'ATELIER_BASE_URL',
            description: "Where Atelier's HTTP API is (its public base URL)",
            default: 'http://localhost:8080',
          },
        ],
      },
    ],
    remotes: remotesAt('https://{host}', true, { host }),
  };
}

/**
 * GET /.well-known/mcp/server.json and the icon it names, open to anyone (they say nothing about an
 * account). MCP's own documents, like /mcp: left out of the OpenAPI document (docs/mcp.md).
 */
export async function mcpDiscovery(
  app: FastifyInstance,
  options: { publicBaseUrl: string; signIn: DiscoverySignIn | undefined },
): Promise<void> {
  const card = JSON.stringify(deploymentServerCard(options.publicBaseUrl, options.signIn));
  const hidden = { schema: { hide: true } };
  app.get(DISCOVERY_PATH, hidden, async (_request, reply) =>
    reply
      .type('application/json; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('access-control-allow-origin', '*')
      .send(card),
  );
  app.get(ICON_PATH, hidden, async (_request, reply) =>
    reply
      .type('image/svg+xml')
      .header('cache-control', 'public, max-age=86400')
      .header('access-control-allow-origin', '*')
      // An SVG opened as a page runs no script and loads nothing.
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
      .header('x-content-type-options', 'nosniff')
      .send(ATELIER_ICON_SVG),
  );
}
