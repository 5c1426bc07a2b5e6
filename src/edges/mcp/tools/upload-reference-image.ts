import { open } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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
      'Local image file on the machine running this MCP server: an absolute path, or one starting with ~/. A ' +
        "relative path is resolved against the client's workspace root when the client shares exactly one " +
        '(MCP roots), and refused otherwise. It is read here and uploaded directly. Give this or source_url, not both.',
    ),
};

/** Registers `upload_reference_image`: re-host an image (public URL or local file) for use in imageUrls. */
export function registerUploadReferenceImage(
  server: McpServer,
  client: AtelierClient,
  /** False on the remote endpoint: the server's disk is not the agent's, so `path` is refused. */
  localFiles = true,
): void {
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
        if (path !== undefined && !localFiles) {
          // Security: a remote MCP server must never read its own disk for a caller.
          throw new LocalToolError(
            'invalid_request',
            'path is not available on the remote MCP endpoint (it would name a file on the server, not yours): give a public source_url, or use the stdio server (npx) for local files',
          );
        }
        const result =
          source_url !== undefined
            ? await client.upload({ source_url }, { signal: extra.signal })
            : await client.upload(
                await readLocalImage(await absolutePathOf(server, path as string, extra.signal)),
                { signal: extra.signal },
              );
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

/**
 * Where a `path` argument points. `~` and `~/…` are the user's home; an absolute path is itself. A
 * relative path means "relative to what I am working on" to an agent, and that is never this
 * server's working directory (MCP clients start servers in a directory the user does not choose):
 * it is resolved against the client's workspace root when the client shares exactly one (MCP
 * roots), and refused otherwise, with what to send instead.
 */
async function absolutePathOf(server: McpServer, rawPath: string, signal: AbortSignal): Promise<string> {
  if (rawPath === '~' || rawPath.startsWith('~/')) return resolve(homedir() + rawPath.slice(1));
  if (isAbsolute(rawPath)) return resolve(rawPath);
  const refuse = (why: string) =>
    new LocalToolError(
      'invalid_request',
      `path ${JSON.stringify(rawPath)} is relative and ${why}: give an absolute path (or one starting with ~/)`,
    );
  if (!server.server.getClientCapabilities()?.roots)
    throw refuse('this MCP client shares no workspace root to resolve it against');
  const { roots } = await server.server.listRoots(undefined, { signal });
  const directories = roots.flatMap((root) => {
    try {
      return [fileURLToPath(root.uri)];
    } catch {
      return []; // not a local file: URI (another scheme, or a remote host)
    }
  });
  const [root] = directories;
  if (root === undefined || directories.length > 1) {
    throw refuse(
      directories.length === 0
        ? 'this MCP client shares no workspace root to resolve it against'
        : `this MCP client shares ${directories.length} workspace roots (${directories.join(', ')})`,
    );
  }
  return resolve(root, rawPath);
}

/** Reads a local image (an absolute path), refusing anything that is not a png/jpeg/webp/gif/bmp by its magic bytes. */
async function readLocalImage(absolute: string): Promise<{ bytes: Uint8Array; contentType: string }> {
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
