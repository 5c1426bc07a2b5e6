import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
  registerAppResource,
} from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** The gallery app's resource (MCP Apps): the page a host shows for the tools that declare it. */
export const GALLERY_URI = 'ui://atelier/gallery.html';

/** Where the build puts the page (scripts/build-mcp-app.mjs), under the package's root. */
export const GALLERY_BUILD_PATH = join('dist', 'mcp-app', 'gallery.html');

/**
 * The `_meta` of a tool that shows its result in the gallery, as the extension's registerAppTool
 * writes it: `ui.resourceUri`, and the older flat key for hosts that still read that one. Hosts
 * without the extension ignore `_meta`: their results stay what they were.
 */
export const GALLERY_TOOL_META: Record<string, unknown> = {
  ui: { resourceUri: GALLERY_URI },
  [RESOURCE_URI_META_KEY]: GALLERY_URI,
};

/** The package root of this module (from src/ or a build's dist/), where dist/mcp-app lives. */
function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  return undefined;
}

let cached: string | undefined;

/** The built page (one self-contained HTML file); read once. Throws when the build has not made it. */
export function galleryHtml(): string {
  if (cached !== undefined) return cached;
  const root = packageRoot();
  const path = root ? join(root, GALLERY_BUILD_PATH) : undefined;
  if (!path || !existsSync(path)) {
    throw new McpError(
      ErrorCode.InternalError,
      `The gallery page is not built (${GALLERY_BUILD_PATH} is missing): run npm run build`,
    );
  }
  cached = readFileSync(path, 'utf8');
  return cached;
}

/**
 * The page's security policy as the extension declares it: the only outside origin it loads from is
 * Atelier's public base URL (the images under /files). It connects nowhere: every call goes through
 * the host's bridge.
 */
export function galleryCsp(filesBaseUrl: string): { resourceDomains: string[]; connectDomains: string[] } {
  return { resourceDomains: [new URL(filesBaseUrl).origin], connectDomains: [] };
}

/** Registers the gallery's `ui://` resource (HTML with the MCP Apps profile, its CSP in `_meta.ui`). */
export function registerGalleryApp(server: McpServer, options: { filesBaseUrl: string }): void {
  const ui = { csp: galleryCsp(options.filesBaseUrl), prefersBorder: false };
  registerAppResource(
    server,
    'atelier-gallery',
    GALLERY_URI,
    {
      title: 'Atelier gallery',
      description:
        "The images of a generation, live: each task's progress, the finished images at full width with their sizes, and buttons to vary, upscale or refine them (MCP Apps).",
      _meta: { ui },
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: galleryHtml(), _meta: { ui } }],
    }),
  );
}
