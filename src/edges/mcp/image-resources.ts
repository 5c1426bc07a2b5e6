import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { sniffImageType } from '../../infra/images/image-type.js';
import { readCapped } from './read-capped.js';

/** The largest image resources/read returns (a 4K PNG is tens of MB; base64 adds a third). */
export const MAX_RESOURCE_BYTES = 64 * 1024 * 1024;

export interface ImageResourceOptions {
  /** Atelier's public base URL: result and upload URLs are `<base>/files/<key>`. */
  filesBaseUrl: string;
  /** How a file is fetched (no API key: /files is public). */
  fetch: typeof fetch;
  timeoutMs?: number;
}

/**
 * A resource template for Atelier's /files URLs, so that clients that fetch resource links through
 * MCP (rather than over HTTP) get the image: `resources/read` answers its bytes (base64 `blob`).
 * Only URLs under the base URL's /files/ match: nothing else is ever fetched.
 */
export function registerImageResources(server: McpServer, options: ImageResourceOptions): void {
  const base = options.filesBaseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 60_000;
  server.registerResource(
    'atelier-file',
    new ResourceTemplate(`${base}/files/{+key}`, { list: undefined }),
    {
      title: 'An Atelier image',
      description:
        'A generated image or an uploaded reference, by its stable URL (the resource links in tool results).',
    },
    async (uri, _variables, extra) => {
      const url = new URL(uri.href);
      if (!`${url.origin}${url.pathname}`.startsWith(`${base}/files/`)) {
        throw new McpError(ErrorCode.InvalidParams, `Resource ${uri.href} is not an Atelier file`);
      }
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await options.fetch(url.href, { signal: AbortSignal.any([extra.signal, timeout]) });
      } catch (error) {
        throw new McpError(
          ErrorCode.InternalError,
          `Could not read ${uri.href}: ${(error as Error).message}`,
        );
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new McpError(
          response.status === 404 ? ErrorCode.InvalidParams : ErrorCode.InternalError,
          `Could not read ${uri.href}: HTTP ${response.status}`,
        );
      }
      const bytes = await readCapped(response, MAX_RESOURCE_BYTES);
      if (!bytes) {
        throw new McpError(ErrorCode.InvalidParams, `${uri.href} is larger than ${MAX_RESOURCE_BYTES} bytes`);
      }
      const mimeType =
        sniffImageType(bytes.subarray(0, 32)) ?? response.headers.get('content-type') ?? undefined;
      return {
        contents: [{ uri: uri.href, blob: bytes.toString('base64'), ...(mimeType ? { mimeType } : {}) }],
      };
    },
  );
}
