// Atelier's gallery app (MCP Apps): the page a host renders in a sandboxed frame for generate_image,
// refine_image, act_on_image and list_my_generations. It holds no credentials and fetches nothing: the
// host hands it the tool's input and result, and every further call (batch_get_tasks while tasks run,
// act_on_image, refine_image) goes through the host's bridge, on the person's own connection.
import { App, applyDocumentTheme, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fromRecord, isFinal, recordsOfResult, type Shot, shotsOfResult } from './model';
import { GalleryView } from './view';

/** Between polls of unfinished tasks: the tools ask agents for 2-5 s, and the page is no exception. */
const POLL_MS = 2000;
/** batch_get_tasks takes at most 20 ids a call. */
const BATCH = 20;

const list = document.getElementById('shots') as HTMLElement;
const summary = document.getElementById('summary') as HTMLElement;
const alert = document.getElementById('alert') as HTMLElement;

const app = new App({ name: 'Atelier gallery', version: '1.0.0' });
const shots = new Map<string, Shot>();
let prompt: string | undefined;
let pollTimer: ReturnType<typeof setTimeout> | undefined;

const view = new GalleryView(list, {
  act: (shot, action) => void act(shot, action),
  refine: (shot, instruction) => refine(shot, instruction),
  open: (shot) => {
    if (shot.imageUrl) void app.openLink({ url: shot.imageUrl }).catch(() => undefined);
  },
});

function textOf(result: CallToolResult): string {
  const block = result.content.find((part) => part.type === 'text');
  return block && 'text' in block ? block.text : 'the tool failed';
}

function say(message: string): void {
  summary.textContent = message;
}

function sayProblem(message: string): void {
  alert.textContent = message;
  alert.hidden = message === '';
}

function summarize(): void {
  const all = [...shots.values()];
  const done = all.filter((shot) => shot.status === 'completed').length;
  const failed = all.filter((shot) => shot.status === 'failed').length;
  const running = all.length - done - failed;
  const parts = [`${done} of ${all.length} image${all.length === 1 ? '' : 's'} ready`];
  if (running > 0) parts.push(`${running} still rendering`);
  if (failed > 0) parts.push(`${failed} failed`);
  say(all.length === 0 ? 'Nothing to show yet.' : `${parts.join(', ')}.`);
}

/** Shows a tool result's shots (after `afterKey`'s card when an action made them) and polls the rest. */
function showResult(structured: unknown, label: string, afterKey?: string): Shot[] {
  const made = shotsOfResult(structured, { label, ...(prompt ? { prompt } : {}) });
  for (const shot of made) shots.set(shot.key, { ...shots.get(shot.key), ...shot });
  view.show(
    made.map((shot) => shots.get(shot.key) as Shot),
    afterKey,
  );
  summarize();
  schedulePoll(0);
  return made;
}

function schedulePoll(delay: number): void {
  if (pollTimer !== undefined) return;
  if (![...shots.values()].some((shot) => shot.taskId && !isFinal(shot))) return;
  pollTimer = setTimeout(() => void poll(), delay);
}

/** One round of batch_get_tasks through the host for the unfinished tasks; the next is scheduled. */
async function poll(): Promise<void> {
  const pending = [...shots.values()].filter((shot) => shot.taskId && !isFinal(shot));
  try {
    for (let i = 0; i < pending.length; i += BATCH) {
      const ids = pending.slice(i, i + BATCH).map((shot) => shot.taskId as string);
      const result = await app.callServerTool({ name: 'batch_get_tasks', arguments: { task_ids: ids } });
      if (result.isError) throw new Error(textOf(result));
      for (const record of recordsOfResult(result.structuredContent)) {
        const shot = shots.get(record.task_id);
        if (shot) shots.set(shot.key, { ...shot, ...fromRecord(record) });
      }
    }
    sayProblem('');
  } catch (error) {
    sayProblem(
      `Could not read the tasks' progress (${error instanceof Error ? error.message : error}); trying again.`,
    );
  }
  view.show(pending.map((shot) => shots.get(shot.key) as Shot));
  summarize();
  pollTimer = undefined;
  schedulePoll(POLL_MS);
}

/** Runs a generation tool through the host; its new images appear after the card acted on. */
async function runTool(name: string, args: Record<string, unknown>, label: string, after: Shot) {
  sayProblem('');
  say(`${label}: starting…`);
  try {
    const result = await app.callServerTool({ name, arguments: args });
    if (result.isError) {
      sayProblem(textOf(result));
      summarize();
      return false;
    }
    const made = showResult(result.structuredContent, label, after.key);
    void tellModel(
      `${label} (${name} on ${args.id ?? args.work_id}) started from the gallery: task ids ${made.map((s) => s.taskId).join(', ')}.`,
    );
    return true;
  } catch (error) {
    sayProblem(`${label} failed: ${error instanceof Error ? error.message : String(error)}`);
    summarize();
    return false;
  }
}

/** Lets the model know what the person did in the gallery, where the host takes such context. */
async function tellModel(text: string): Promise<void> {
  if (!app.getHostCapabilities()?.updateModelContext) return;
  await app.updateModelContext({ content: [{ type: 'text', text }] }).catch(() => undefined);
}

function act(shot: Shot, action: 'vary' | 'upscale') {
  const id = shot.taskId ?? shot.generationId;
  const label = action === 'upscale' ? `Upscale ×2 of ${shot.label}` : `Variation of ${shot.label}`;
  const args = action === 'upscale' ? { id, action, scale: 2 } : { id, action };
  return runTool('act_on_image', args, label, shot);
}

function refine(shot: Shot, instruction: string) {
  const workId = shot.taskId ?? shot.generationId;
  return runTool('refine_image', { work_id: workId, instruction }, `Refined: ${instruction}`, shot);
}

function applyContext(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
}

// Handlers first: the host may send the tool's input and result as soon as the handshake ends.
app.ontoolinput = ({ arguments: args }) => {
  const text = args?.prompt ?? args?.instruction;
  if (typeof text === 'string') prompt = text;
  if (shots.size === 0) say('Starting…');
};
app.ontoolresult = (result) => {
  if (result.isError) {
    sayProblem(textOf(result as CallToolResult));
    return;
  }
  const toolName = app.getHostContext()?.toolInfo?.tool.name;
  showResult(result.structuredContent, toolName === 'act_on_image' ? 'New version' : (prompt ?? 'Image'));
};
app.onhostcontextchanged = (context) => applyContext(context);
app.onteardown = async () => {
  if (pollTimer !== undefined) clearTimeout(pollTimer);
  return {};
};

await app.connect();
applyContext(app.getHostContext());
