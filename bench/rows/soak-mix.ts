/**
 * M1's traffic: one request at a time per client, picked from a weighted mix of what callers do —
 * generate (the API, OpenAI's and Gemini's faces, some with a webhook, some edits of an upload),
 * polls, history pages, result files and renditions, uploads, the model list, usage, and requests
 * that must fail (404, 400). Each answer's status is checked against what that request must get.
 */
import sharp from 'sharp';
import { type Agent, request } from 'undici';

export type Mix = Record<
  | 'generate'
  | 'openaiGenerate'
  | 'geminiGenerate'
  | 'poll'
  | 'batchPoll'
  | 'history'
  | 'file'
  | 'upload'
  | 'models'
  | 'usage'
  | 'notFound'
  | 'invalid',
  number
>;

export interface SoakState {
  baseUrl: string;
  keys: string[];
  callbackUrl: string;
  dispatcher: Agent;
  /** Per account: its latest task ids (the last 200). */
  taskIds: string[][];
  /** Per account: its latest result and upload URLs (the last 200). */
  fileUrls: string[][];
  /** Requests sent, per kind. */
  counts: Map<string, number>;
  /** Answers that were not what the request must get (the first few hundred). */
  errors: string[];
}

const pick = <T>(items: T[], random = Math.random()): T | undefined =>
  items[Math.floor(random * items.length)];

const keep = (list: string[], items: string[]) => {
  list.push(...items);
  if (list.length > 200) list.splice(0, list.length - 200);
};

/** Sends one request and checks its status; the parsed JSON when it has some. */
async function send(
  state: SoakState,
  kind: string,
  path: string,
  init: { method?: string; key: string; body?: unknown; raw?: Buffer; contentType?: string; expect: number },
): Promise<Record<string, unknown> | undefined> {
  state.counts.set(kind, (state.counts.get(kind) ?? 0) + 1);
  const headers: Record<string, string> = { authorization: `Bearer ${init.key}` };
  let body: string | Buffer | undefined;
  if (init.raw) {
    headers['content-type'] = init.contentType ?? 'application/octet-stream';
    body = init.raw;
  } else if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.body);
  }
  try {
    const response = await request(`${state.baseUrl}${path}`, {
      method: (init.method ?? (body === undefined ? 'GET' : 'POST')) as 'GET' | 'POST',
      headers,
      body,
      dispatcher: state.dispatcher,
    });
    const bytes = Buffer.from(await response.body.arrayBuffer());
    if (response.statusCode !== init.expect) {
      if (state.errors.length < 300)
        state.errors.push(
          `${kind} ${path.slice(0, 80)}: ${response.statusCode} ${bytes.toString('utf8', 0, 200)}`,
        );
      return undefined;
    }
    const type = String(response.headers['content-type'] ?? '');
    return type.includes('json') ? (JSON.parse(bytes.toString('utf8')) as Record<string, unknown>) : {};
  } catch (error) {
    if (state.errors.length < 300)
      state.errors.push(`${kind} ${path.slice(0, 80)}: ${(error as Error).message}`);
    return undefined;
  }
}

let uploadSerial = 0;

/** A small PNG no earlier request sent (uploads are content-addressed: each one is new bytes). */
function freshPng(): Promise<Buffer> {
  uploadSerial++;
  const pixels = Buffer.alloc(48 * 48 * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 31 + uploadSerial * 7919) & 0xff;
  pixels.writeUInt32BE(uploadSerial, 0);
  return sharp(pixels, { raw: { width: 48, height: 48, channels: 3 } })
    .png()
    .toBuffer();
}

type Step = (state: SoakState, account: number) => Promise<void>;

const steps: Record<keyof Mix, Step> = {
  async generate(state, a) {
    const edit = Math.random() < 0.25 ? pick(state.fileUrls[a] ?? []) : undefined;
    const answer = await send(state, 'generate', '/api/v1/generate', {
      key: state.keys[a] as string,
      body: {
        prompt: `soak ${Math.random().toString(36).slice(2)}${Math.random() < 0.03 ? ' [[fail]]' : ''}`,
        count: 1 + Math.floor(Math.random() * 4),
        imageSize: '1K',
        ...(edit ? { mode: 'edit', imageUrls: [edit] } : {}),
        ...(Math.random() < 0.3 ? { callbackUrl: state.callbackUrl } : {}),
      },
      expect: 200,
    });
    if (answer) keep(state.taskIds[a] as string[], answer.task_ids as string[]);
  },
  async openaiGenerate(state, a) {
    const answer = await send(state, 'openaiGenerate', '/v1/images/generations', {
      key: state.keys[a] as string,
      body: { prompt: `soak openai ${Math.random()}`, size: '1024x1024', n: 1, response_format: 'url' },
      expect: 200,
    });
    const data = (answer?.data ?? []) as Array<{ url?: string }>;
    keep(
      state.fileUrls[a] as string[],
      data.flatMap((d) => (d.url ? [d.url] : [])),
    );
  },
  async geminiGenerate(state, a) {
    await send(state, 'geminiGenerate', '/v1beta/models/gemini-3.1-flash-image:generateContent', {
      key: state.keys[a] as string,
      body: { contents: [{ parts: [{ text: `soak gemini ${Math.random()}` }] }] },
      expect: 200,
    });
  },
  async poll(state, a) {
    const id = pick(state.taskIds[a] ?? []);
    if (!id) return;
    const task = await send(state, 'poll', `/api/v1/tasks/${id}`, {
      key: state.keys[a] as string,
      expect: 200,
    });
    if (task?.status === 'completed' && typeof task.imageUrl === 'string') {
      keep(state.fileUrls[a] as string[], [task.imageUrl]);
    }
  },
  async batchPoll(state, a) {
    const ids = (state.taskIds[a] ?? []).slice(-20);
    if (ids.length === 0) return;
    await send(state, 'batchPoll', `/api/v1/tasks?ids=${ids.join(',')}`, {
      key: state.keys[a] as string,
      expect: 200,
    });
  },
  async history(state, a) {
    const page = 1 + Math.floor(Math.random() ** 2 * 20);
    await send(state, 'history', `/api/v1/history?page=${page}&limit=20`, {
      key: state.keys[a] as string,
      expect: 200,
    });
  },
  async file(state, a) {
    const url = pick(state.fileUrls[a] ?? []);
    if (!url) return;
    const path = new URL(url).pathname;
    // Half the reads ask for a rendition (a thumbnail or preview), made and kept on first read.
    const width = Math.random() < 0.5 ? `?w=${pick([160, 320, 640])}${pick(['', '&format=webp'])}` : '';
    await send(state, 'file', `${path}${width}`, { key: state.keys[a] as string, expect: 200 });
  },
  async upload(state, a) {
    const answer = await send(state, 'upload', '/api/v1/upload', {
      key: state.keys[a] as string,
      raw: await freshPng(),
      contentType: 'image/png',
      expect: 200,
    });
    if (typeof answer?.url === 'string') keep(state.fileUrls[a] as string[], [answer.url]);
  },
  async models(state, a) {
    await send(state, 'models', pick(['/api/v1/models', '/v1/models', '/v1beta/models']) as string, {
      key: state.keys[a] as string,
      expect: 200,
    });
  },
  async usage(state, a) {
    await send(state, 'usage', pick(['/api/v1/user/usage', '/api/v1/user/status']) as string, {
      key: state.keys[a] as string,
      expect: 200,
    });
  },
  async notFound(state, a) {
    const id = `tsk_${Math.random().toString(36).slice(2)}`;
    await send(state, 'notFound', `/api/v1/tasks/${id}`, { key: state.keys[a] as string, expect: 404 });
  },
  async invalid(state, a) {
    await send(state, 'invalid', '/api/v1/generate', {
      key: state.keys[a] as string,
      body: { prompt: '', count: 9 },
      expect: 400,
    });
  },
};

/** One request of the mix, for the account `client` maps to. */
export async function mixedRequest(state: SoakState, mix: Mix, client: number): Promise<void> {
  const total = Object.values(mix).reduce((a, n) => a + n, 0);
  let r = Math.random() * total;
  for (const [kind, weight] of Object.entries(mix) as Array<[keyof Mix, number]>) {
    r -= weight;
    if (r < 0) return steps[kind](state, client % state.keys.length);
  }
}
