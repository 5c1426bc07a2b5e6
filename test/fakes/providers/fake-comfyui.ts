/**
 * A loopback ComfyUI server that follows ComfyUI's server.py and execution.py field by field:
 * `POST /prompt` (validation with `node_errors`: a checkpoint not installed is `value_not_in_list`,
 * an image not uploaded is `custom_validation_failed`), `GET /prompt`, `GET /queue`, `POST /queue`
 * `{delete}`, `POST /interrupt`, `GET /history/{id}`, `GET /view`, `POST /upload/image`,
 * `GET /models/checkpoints`, and the websocket `/ws?clientId=` with `status`, `execution_start`,
 * `execution_cached`, `executing`, `progress`, `executed`, `execution_success`, `execution_error`,
 * `execution_interrupted` (execution messages go to the prompt's client id only, as in ComfyUI).
 *
 * One prompt runs at a time. With `manual: true` a running prompt waits at its sampler until the
 * test calls `step()` (one sampler step) — progress that moves only when the test says so.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import sharp from 'sharp';
import { WebSocket, WebSocketServer } from 'ws';

type Node = { class_type: string; inputs: Record<string, unknown> };
type Prompt = Record<string, Node>;
interface Item {
  number: number;
  id: string;
  prompt: Prompt;
  extra: Record<string, unknown>;
  outputs: string[];
  step: number;
  finishing: boolean;
}

export interface FakeComfyUI {
  baseUrl: string;
  /** Every prompt queued, with its filled workflow. */
  queued: Array<{ id: string; prompt: Prompt; clientId: unknown }>;
  uploads: Map<string, Buffer>;
  running(): string | undefined;
  pending(): string[];
  /** Resolves when a prompt is running (its sampler waiting for `step` in manual mode). */
  waitForRunning(): Promise<string>;
  /** One sampler step of the running prompt; the last one finishes it. */
  step(): void;
  /** The running prompt fails at its sampler with this exception (execution_error). */
  failRunning(exceptionType: string, message: string): void;
  /** Closes every websocket and refuses new ones (until `allowSockets`). */
  dropSockets(): void;
  allowSockets(): void;
  /** Manual: prompts wait at the sampler for `step`; else they run through at once. */
  setManual(manual: boolean): void;
  /** The checkpoint files installed (validation and `GET /models/checkpoints` read it). */
  checkpoints: string[];
  /** Stops answering at all (a server that goes away): connections refused. */
  close(): Promise<void>;
}

export const STEPS = 4;

export async function startFakeComfyUI(
  options: { checkpoints?: string[]; manual?: boolean; port?: number } = {},
): Promise<FakeComfyUI> {
  const checkpoints = options.checkpoints ?? ['sd_xl_base_1.0.safetensors'];
  let manual = options.manual ?? false;
  const uploads = new Map<string, Buffer>();
  const outputs = new Map<string, Buffer>();
  const history = new Map<string, unknown>();
  const queue: Item[] = [];
  const queued: FakeComfyUI['queued'] = [];
  let current: Item | undefined;
  let number = 0;
  let socketsRefused = false;
  const sockets = new Map<string, WebSocket>();
  const waiters: Array<(id: string) => void> = [];

  const send = (type: string, data: Record<string, unknown>, sid?: unknown) => {
    const text = JSON.stringify({ type, data });
    const targets = sid === undefined ? [...sockets.values()] : [sockets.get(String(sid))].filter(Boolean);
    for (const ws of targets) if (ws?.readyState === WebSocket.OPEN) ws.send(text);
  };
  const queueInfo = () => ({ exec_info: { queue_remaining: queue.length + (current ? 1 : 0) } });
  const ts = () => Date.now();

  function validate(prompt: Prompt) {
    const nodeErrors: Record<string, unknown> = {};
    for (const [id, node] of Object.entries(prompt)) {
      const errors: unknown[] = [];
      if (
        node.class_type === 'CheckpointLoaderSimple' &&
        !checkpoints.includes(String(node.inputs.ckpt_name))
      ) {
        errors.push({
          type: 'value_not_in_list',
          message: 'Value not in list',
          details: `ckpt_name: '${node.inputs.ckpt_name}' not in ${JSON.stringify(checkpoints)}`,
          extra_info: { input_name: 'ckpt_name', received_value: node.inputs.ckpt_name },
        });
      }
      if (node.class_type === 'LoadImage' && !uploads.has(String(node.inputs.image))) {
        errors.push({
          type: 'custom_validation_failed',
          message: 'Custom validation failed for node',
          details: `image - Invalid image file: ${node.inputs.image}`,
          extra_info: {},
        });
      }
      if (errors.length > 0)
        nodeErrors[id] = { errors, dependent_outputs: ['9'], class_type: node.class_type };
    }
    return nodeErrors;
  }

  const sampler = (item: Item) =>
    Object.entries(item.prompt).find(([, n]) => n.class_type === 'KSampler') ?? [
      '3',
      { class_type: 'KSampler', inputs: {} },
    ];

  function startNext(): void {
    if (current || queue.length === 0) return;
    current = queue.shift() as Item;
    const item = current;
    const sid = item.extra.client_id;
    send('status', { status: queueInfo() });
    send('execution_start', { prompt_id: item.id, timestamp: ts() }, sid);
    send('execution_cached', { nodes: [], prompt_id: item.id, timestamp: ts() }, sid);
    for (const [id, node] of Object.entries(item.prompt)) {
      if (
        node.class_type === 'KSampler' ||
        node.class_type === 'VAEDecode' ||
        node.class_type === 'SaveImage'
      )
        continue;
      send('executing', { node: id, display_node: id, prompt_id: item.id }, sid);
    }
    const [samplerId] = sampler(item);
    send('executing', { node: samplerId, display_node: samplerId, prompt_id: item.id }, sid);
    for (const wake of waiters.splice(0)) wake(item.id);
    if (!manual) while (current === item && !item.finishing) step();
  }

  function end(item: Item, status: Record<string, unknown>, out: Record<string, unknown>): void {
    history.set(item.id, {
      prompt: [item.number, item.id, item.prompt, item.extra, item.outputs],
      outputs: out,
      status,
      meta: {},
    });
    current = undefined;
    send('status', { status: queueInfo() });
    setImmediate(startNext);
  }

  async function finish(item: Item): Promise<void> {
    const sid = item.extra.client_id;
    const latent = Object.values(item.prompt).find((n) => n.class_type === 'EmptyLatentImage');
    const loaded = Object.values(item.prompt).find((n) => n.class_type === 'LoadImage');
    const source = loaded ? uploads.get(String(loaded.inputs.image)) : undefined;
    const size = source
      ? await sharp(source).metadata()
      : { width: Number(latent?.inputs.width ?? 512), height: Number(latent?.inputs.height ?? 512) };
    const seed = Number(sampler(item)[1].inputs.seed ?? 0);
    const png = await sharp({
      create: {
        width: size.width ?? 64,
        height: size.height ?? 64,
        channels: 3,
        background: { r: seed % 256, g: 90, b: 160 },
      },
    })
      .png()
      .toBuffer();
    const filename = `atelier_${String(outputs.size + 1).padStart(5, '0')}_.png`;
    outputs.set(filename, png);
    const images = [{ filename, subfolder: '', type: 'output' }];
    send('executing', { node: '8', display_node: '8', prompt_id: item.id }, sid);
    send('executing', { node: '9', display_node: '9', prompt_id: item.id }, sid);
    send('executed', { node: '9', display_node: '9', output: { images }, prompt_id: item.id }, sid);
    const messages = [
      ['execution_start', { prompt_id: item.id, timestamp: ts() }],
      ['execution_cached', { nodes: [], prompt_id: item.id, timestamp: ts() }],
      ['execution_success', { prompt_id: item.id, timestamp: ts() }],
    ];
    end(item, { status_str: 'success', completed: true, messages }, { '9': { images } });
    send('executing', { node: null, prompt_id: item.id }, sid);
    send('execution_success', { prompt_id: item.id, timestamp: ts() }, sid);
  }

  function step(): void {
    const item = current;
    if (!item || item.finishing) throw new Error('no prompt is at its sampler');
    item.step += 1;
    const [samplerId] = sampler(item);
    send(
      'progress',
      { value: item.step, max: STEPS, prompt_id: item.id, node: samplerId },
      item.extra.client_id,
    );
    if (item.step >= STEPS) {
      item.finishing = true;
      void finish(item);
    }
  }

  function stopRunning(
    event: 'execution_error' | 'execution_interrupted',
    data: Record<string, unknown>,
  ): void {
    const item = current;
    if (!item) return;
    const [samplerId] = sampler(item);
    const mes = {
      prompt_id: item.id,
      node_id: samplerId,
      node_type: 'KSampler',
      executed: ['4', '5', '6', '7'],
      ...data,
    };
    send(event, mes, item.extra.client_id);
    end(
      item,
      {
        status_str: 'error',
        completed: false,
        messages: [
          ['execution_start', { prompt_id: item.id }],
          [event, mes],
        ],
      },
      {},
    );
  }

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/prompt') return json(res, 200, queueInfo());
    if (req.method === 'POST' && path === '/prompt') {
      const data = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      if (!('prompt' in data)) return json(res, 400, { error: 'no prompt', node_errors: [] });
      const prompt = data.prompt as Prompt;
      const nodeErrors = validate(prompt);
      if (Object.keys(nodeErrors).length > 0) {
        return json(res, 400, {
          error: {
            type: 'prompt_outputs_failed_validation',
            message: 'Prompt outputs failed validation',
            details: '',
            extra_info: {},
          },
          node_errors: nodeErrors,
        });
      }
      const id = typeof data.prompt_id === 'string' ? data.prompt_id : randomUUID();
      const extra = { ...((data.extra_data as Record<string, unknown>) ?? {}), client_id: data.client_id };
      const item = { number: number++, id, prompt, extra, outputs: ['9'], step: 0, finishing: false };
      queue.push(item);
      queued.push({ id, prompt, clientId: data.client_id });
      json(res, 200, { prompt_id: id, number: item.number, node_errors: {} });
      send('status', { status: queueInfo() });
      setImmediate(startNext);
      return;
    }
    if (req.method === 'GET' && path === '/queue') {
      const row = (i: Item) => [i.number, i.id, i.prompt, i.extra, i.outputs];
      return json(res, 200, { queue_running: current ? [row(current)] : [], queue_pending: queue.map(row) });
    }
    if (req.method === 'POST' && path === '/queue') {
      const data = JSON.parse(body.toString('utf8')) as { delete?: string[]; clear?: boolean };
      for (const id of data.delete ?? []) {
        const at = queue.findIndex((i) => i.id === id);
        if (at >= 0) queue.splice(at, 1);
      }
      if (data.clear) queue.length = 0;
      res.writeHead(200).end();
      return;
    }
    if (req.method === 'POST' && path === '/interrupt') {
      stopRunning('execution_interrupted', {});
      res.writeHead(200).end();
      return;
    }
    if (req.method === 'GET' && path.startsWith('/history/')) {
      const id = decodeURIComponent(path.slice('/history/'.length));
      const entry = history.get(id);
      return json(res, 200, entry ? { [id]: entry } : {});
    }
    if (req.method === 'GET' && path === '/view') {
      const file = outputs.get(url.searchParams.get('filename') ?? '');
      if (!file || url.searchParams.get('type') !== 'output') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(file);
      return;
    }
    if (req.method === 'POST' && path === '/upload/image') {
      const form = await new Response(new Uint8Array(body), {
        headers: { 'content-type': req.headers['content-type'] ?? '' },
      }).formData();
      const image = form.get('image');
      if (!(image instanceof Blob) || !('name' in image)) return void res.writeHead(400).end();
      const subfolder = String(form.get('subfolder') ?? '');
      const name = String((image as File).name);
      uploads.set(subfolder ? `${subfolder}/${name}` : name, Buffer.from(await image.arrayBuffer()));
      return json(res, 200, { name, subfolder, type: String(form.get('type') ?? 'input') });
    }
    if (req.method === 'GET' && path === '/models/checkpoints') return json(res, 200, checkpoints);
    res.writeHead(404).end();
  }

  const connections = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks)).catch((error: Error) => json(res, 599, { bug: error.stack }));
    });
  });
  server.on('connection', (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/ws' || socketsRefused) return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      const sid = url.searchParams.get('clientId') || randomUUID().replaceAll('-', '');
      sockets.get(sid)?.close();
      sockets.set(sid, ws);
      ws.on('close', () => sockets.get(sid) === ws && sockets.delete(sid));
      ws.send(JSON.stringify({ type: 'status', data: { status: queueInfo(), sid } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    queued,
    uploads,
    running: () => current?.id,
    pending: () => queue.map((i) => i.id),
    waitForRunning: () =>
      current && !current.finishing
        ? Promise.resolve(current.id)
        : new Promise((resolve) => waiters.push(resolve)),
    step,
    failRunning: (exceptionType, message) =>
      stopRunning('execution_error', {
        exception_type: exceptionType,
        exception_message: message,
        traceback: ['Traceback (most recent call last):'],
        current_inputs: {},
        current_outputs: [],
      }),
    checkpoints,
    allowSockets() {
      socketsRefused = false;
    },
    setManual(value) {
      manual = value;
      if (!manual && current && !current.finishing) while (current && !current.finishing) step();
    },
    dropSockets() {
      socketsRefused = true;
      for (const ws of sockets.values()) ws.terminate();
      sockets.clear();
    },
    async close() {
      socketsRefused = true;
      for (const ws of sockets.values()) ws.terminate();
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
