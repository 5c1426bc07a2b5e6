import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AtelierClient } from '../client/atelier-client.js';

/** The deployment's model catalog as an MCP resource: what generate_image's `model` may name. */
export const CATALOG_RESOURCE_URI = 'atelier://models';

/**
 * Registers the catalog resource: GET /api/v1/models as read at that moment (each model's modes,
 * aspects, sizes, caps, qualities, prices in micro-dollars and lifecycle), for clients that read
 * resources; the tool list_models answers the same. The tools' texts point there instead of copying
 * the catalog, so they never disagree with the deployment.
 */
export function registerCatalogResource(server: McpServer, client: AtelierClient): void {
  server.registerResource(
    'atelier-models',
    CATALOG_RESOURCE_URI,
    {
      title: 'Atelier models',
      description:
        "The deployment's models (GET /api/v1/models): modes, aspects, sizes, maxCount, qualities, prices per image by size and quality (micro-dollars, 1,000,000 = $1) and lifecycle.",
      mimeType: 'application/json',
    },
    async (uri, extra) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify(await client.models({ signal: extra.signal })),
        },
      ],
    }),
  );
}
