// A test host for MCP Apps, in the browser, built the way the extension's example host (basic-host) is:
// the MCP SDK's client over Streamable HTTP to the server, the tool called, its ui:// resource read,
// the page put in a sandboxed frame (scripts only, an opaque origin) under the CSP its _meta.ui
// declares, and the extension's AppBridge over a PostMessageTransport between them. The bridge
// forwards the view's tools/call to the server through this client: the page holds no credentials.
// Bundled for the page by mcp-apps-gallery.test.ts.
import {
  AppBridge,
  getToolUiResourceUri,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const HOST = { name: 'atelier-test-host', version: '1.0.0' };

// The extension's McpUiHostContext and McpUiResourceCsp (its .d.ts re-exports them in a way NodeNext
// resolution does not follow).
type McpUiHostContext = Parameters<AppBridge['sendHostContextChange']>[0];
interface McpUiResourceCsp {
  resourceDomains?: string[];
  connectDomains?: string[];
}

/** The policy a host puts on the view, from the domains the resource declares (the spec's defaults). */
function policyOf(csp: McpUiResourceCsp | undefined): string {
  const resources = (csp?.resourceDomains ?? []).join(' ');
  const connect = (csp?.connectDomains ?? []).join(' ');
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`,
    `style-src 'unsafe-inline' ${resources}`,
    `img-src data: blob: ${resources}`,
    `font-src ${resources || "'none'"}`,
    `connect-src ${connect || "'none'"}`,
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export interface HostRun {
  /** What the host told the model: ui/update-model-context requests of the view. */
  modelContext: string[];
  /** Links the view asked the host to open. */
  openedLinks: string[];
}

async function connectClient(apiKey: string): Promise<Client> {
  const client = new Client(HOST);
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', location.origin), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    }),
  );
  return client;
}

/** Calls `toolName` and shows its app in a sandboxed frame, as a host that supports MCP Apps does. */
async function run(
  apiKey: string,
  toolName: string,
  args: Record<string, unknown>,
  context: McpUiHostContext,
): Promise<HostRun> {
  const client = await connectClient(apiKey);
  const { tools } = await client.listTools();
  const tool = tools.find((candidate) => candidate.name === toolName);
  if (!tool) throw new Error(`no tool ${toolName}`);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${toolName} declares no ui:// resource`);
  const result = client.callTool({ name: toolName, arguments: args }) as Promise<CallToolResult>;
  const [content] = (await client.readResource({ uri })).contents;
  if (!content || !('text' in content)) throw new Error(`${uri} has no text`);
  const csp = (content._meta?.ui as { csp?: McpUiResourceCsp } | undefined)?.csp;

  const frame = document.createElement('iframe');
  frame.title = 'Atelier gallery';
  frame.setAttribute('sandbox', 'allow-scripts');
  document.getElementById('conversation')?.append(frame);
  const window = frame.contentWindow;
  if (!window) throw new Error('no frame window');

  const run: HostRun = { modelContext: [], openedLinks: [] };
  const bridge = new AppBridge(
    client,
    HOST,
    { openLinks: {}, serverTools: {}, logging: {}, updateModelContext: { text: {} } },
    { hostContext: { ...context, toolInfo: { tool } } },
  );
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${height}px`;
  };
  bridge.onopenlink = async ({ url }) => {
    run.openedLinks.push(url);
    return {};
  };
  bridge.onupdatemodelcontext = async ({ content: blocks }) => {
    for (const block of blocks ?? []) if (block.type === 'text') run.modelContext.push(block.text);
    return {};
  };
  bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: args });
    await bridge.sendToolResult(await result);
  };
  await bridge.connect(new PostMessageTransport(window, window));
  const policy = `<meta http-equiv="Content-Security-Policy" content="${policyOf(csp)}">`;
  frame.srcdoc = content.text.replace(/<head>/i, `<head>${policy}`);
  (globalThis as unknown as { setTheme: (theme: 'light' | 'dark') => Promise<void> }).setTheme = async (
    theme,
  ) => {
    await bridge.sendHostContextChange({ theme });
  };
  (globalThis as unknown as { hostRun: HostRun }).hostRun = run;
  return run;
}

(globalThis as unknown as { startHost: typeof run }).startHost = run;
