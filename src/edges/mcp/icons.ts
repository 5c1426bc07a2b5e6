import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Icon } from '@modelcontextprotocol/sdk/types.js';

/**
 * Atelier's mark (the website's favicon: web/public/favicon.svg), the server's icon. Plain SVG: no
 * script, no outside reference, so a host may render it as it is.
 */
export const ATELIER_ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><title>Atelier</title><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#6d5dfc"/><stop offset="1" stop-color="#e0569b"/></linearGradient></defs><rect width="32" height="32" rx="8" fill="url(#g)"/><path d="M9 23l5.5-14h3L23 23h-3.2l-1.2-3.3h-5.3L12.2 23H9zm5.2-6h3.5L16 12.2 14.2 17z" fill="#fff"/></svg>';

/** A glyph on Atelier's tile: what a tool does, at a glance (24 px in most hosts). */
const tile = (title: string, glyph: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><title>${title}</title><rect width="24" height="24" rx="6" fill="#6d5dfc"/><g fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${glyph}</g></svg>`;

/** The glyphs: make (a spark), change (a brush), read (a list), price (a tag), catalog (a grid), upload (an arrow). */
const GLYPHS = {
  make: tile('Make', '<path d="M12 4v4M12 16v4M4 12h4M16 12h4M7 7l2 2M15 15l2 2M17 7l-2 2M9 15l-2 2"/>'),
  change: tile(
    'Change',
    '<path d="M5 19c2 0 3-1 3-3l8-8 2 2-8 8c-2 0-3 1-3 3z"/><path d="M14 6l2-2 4 4-2 2"/>',
  ),
  read: tile('Read', '<path d="M6 7h12M6 12h12M6 17h8"/>'),
  price: tile('Price', '<path d="M4 12l8-8h7v7l-8 8z"/><circle cx="15.5" cy="8.5" r="1"/>'),
  catalog: tile(
    'Models',
    '<rect x="5" y="5" width="5" height="5"/><rect x="14" y="5" width="5" height="5"/><rect x="5" y="14" width="5" height="5"/><rect x="14" y="14" width="5" height="5"/>',
  ),
  upload: tile('Upload', '<path d="M12 18V6M7 11l5-5 5 5M5 20h14"/>'),
};

/** Which glyph each tool shows; a tool not named here shows Atelier's mark. */
const TOOL_GLYPHS: Record<string, keyof typeof GLYPHS> = {
  generate_image: 'make',
  refine_image: 'change',
  act_on_image: 'change',
  upload_reference_image: 'upload',
  get_task: 'read',
  batch_get_tasks: 'read',
  list_my_generations: 'read',
  list_versions: 'read',
  get_account_status: 'read',
  quote_image: 'price',
  list_models: 'catalog',
};

/**
 * An SVG as a `data:` URI (MCP 2025-11-25 icons take a URL or a data URI). Decision: the protocol's
 * icons are data URIs, so a host shows them without fetching anything (no origin to trust, no CSP
 * to pass, and the stdio server needs no route of a deployment); the registry's and the discovery
 * document's icon, which must be an https URL, is the same mark served at /mcp/icon.svg.
 */
export function svgDataUri(svg: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

const icon = (svg: string): Icon => ({ src: svgDataUri(svg), mimeType: 'image/svg+xml', sizes: ['any'] });

/** serverInfo.icons: Atelier's mark. */
export const SERVER_ICONS: Icon[] = [icon(ATELIER_ICON_SVG)];

/** A tool's icons: its glyph, or Atelier's mark. */
export function toolIcons(name: string): Icon[] {
  const glyph = TOOL_GLYPHS[name];
  return glyph ? [icon(GLYPHS[glyph])] : SERVER_ICONS;
}

type RawHandler = (request: unknown, extra: unknown) => Promise<unknown>;
/** The SDK's table of request handlers (Protocol's, 1.32), as task-requests.ts uses it. */
type WithHandlers = { _requestHandlers: Map<string, RawHandler> };

/**
 * Puts each tool's `icons` in tools/list: the SDK (1.32) lists a tool's name, texts, schemas and
 * annotations but not its icons, so the listing is completed here.
 */
export function listToolIcons(server: McpServer): void {
  const handlers = (server.server as unknown as WithHandlers)._requestHandlers;
  const list = handlers.get('tools/list');
  if (!list) throw new Error('tools/list is registered before the tools get their icons');
  handlers.set('tools/list', async (request, extra) => {
    const answer = (await list(request, extra)) as { tools: Array<{ name: string; icons?: Icon[] }> };
    return { ...answer, tools: answer.tools.map((tool) => ({ ...tool, icons: toolIcons(tool.name) })) };
  });
}
