import { open } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type AtelierClient, uploadResultSchema } from '../../client/atelier-client.js';
import { detectImageMediaType } from '../../client/image-media-type.js';
import { errorResult, LocalToolError, structuredResult } from '../tool-results.js';

/** The API's per-image cap (spec §8); checked here too so a huge local file is never read whole. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

const inputSchema = {
  source_url: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Public http(s) URL of an image; Atelier downloads and re-hosts it. Give this or path, not both.',
    ),
  path: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Local image file on the machine running this MCP server: an absolute path, or one starting with ~/. It is ' +
        'read here and uploaded directly. Give this or source_url, not both.',
    ),
};

/** Registers `upload_reference_image`: re-host an image (public URL or local file) for use in imageUrls. */
export function registerUploadReferenceImage(server: McpServer, client: AtelierClient): void {
  server.registerTool(
    'upload_reference_image',
    {
      title: 'Upload a reference image',
      description:
        'Re-host a reference image so generate_image can use it: pass source_url (a public link) or path (a local ' +
        'file). Formats png, jpeg, webp, gif or bmp, at most 25 MB. Returns a stable url; pass it in imageUrls ' +
        'with mode "edit" (exactly one image).',
      inputSchema,
      outputSchema: uploadResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    async ({ source_url, path }, extra) => {
      try {
        if ((source_url === undefined) === (path === undefined)) {
          throw new LocalToolError('invalid_request', 'pass exactly one of source_url or path');
        }
        const result =
          source_url !== undefined
            ? await client.upload({ source_url }, { signal: extra.signal })
            : await client.upload(await readLocalImage(path as string), { signal: extra.signal });
        return structuredResult(result, [
          {
            type: 'text',
            text: `Pass ${JSON.stringify(result.url)} in imageUrls of generate_image (mode "edit").`,
          },
        ]);
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}

/** Reads a local image, refusing anything that is not a png/jpeg/webp/gif/bmp by its magic bytes. */
async function readLocalImage(rawPath: string): Promise<{ bytes: Uint8Array; contentType: string }> {
  // MCP clients start servers in a directory the user does not choose, so ~ is expanded and the
  // description asks for absolute paths.
  const expanded = rawPath === '~' || rawPath.startsWith('~/') ? homedir() + rawPath.slice(1) : rawPath;
  const absolute = resolve(expanded);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(absolute, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? 'cannot open');
    throw new LocalToolError('invalid_request', `cannot read path ${absolute}: ${why}`);
  }
  try {
    // Stat the opened handle, not the name, so the checks and the read are about the same file.
    const info = await handle.stat();
    if (!info.isFile()) throw new LocalToolError('invalid_request', `path ${absolute} is not a regular file`);
    if (info.size > MAX_UPLOAD_BYTES) {
      throw new LocalToolError(
        'payload_too_large',
        `${absolute} is ${info.size} bytes; the limit is ${MAX_UPLOAD_BYTES} bytes (25 MB)`,
      );
    }
    const bytes = await handle.readFile();
    const contentType = detectImageMediaType(bytes);
    if (!contentType) {
      // Security: nothing leaves the machine unless it is an image, whatever the agent points at.
      throw new LocalToolError(
        'unsupported_media_type',
        `${absolute} is not a png, jpeg, webp, gif or bmp image`,
      );
    }
    return { bytes, contentType };
  } finally {
    await handle.close();
  }
}
