// What the gallery shows, read from the tool results the host hands over (structuredContent): one
// "shot" per image, keyed, updated in place as the tasks move. No network: the page only sees results.

export type ShotStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

export interface Shot {
  key: string;
  /** The image's task: what actions and refinements name (tsk_…). */
  taskId?: string;
  /** A history item's generation: actions on it act on its first image (gen_…). */
  generationId?: string;
  status: ShotStatus;
  progress: number;
  label: string;
  prompt?: string;
  imageUrl?: string;
  width?: number;
  height?: number;
  bytes?: number;
  contentType?: string;
  error?: string;
  /** Why an unfinished task waits, in words, when the record says. */
  waiting?: string;
}

/** A task record of the API (the fields the gallery reads). */
interface TaskRecord {
  task_id: string;
  status: string;
  progress?: number;
  imageUrl?: string;
  width?: number;
  height?: number;
  bytes?: number;
  contentType?: string;
  error?: string;
  waiting_for?: string;
  queue_position?: number;
}

interface HistoryItem {
  id: string;
  prompt?: string;
  images?: string[];
}

const STATUSES: readonly string[] = ['queued', 'in_progress', 'completed', 'failed'];

export function isFinal(shot: Pick<Shot, 'status'>): boolean {
  return shot.status === 'completed' || shot.status === 'failed';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function taskRecordsOf(value: unknown): TaskRecord[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (task): task is TaskRecord => isRecord(task) && typeof task.task_id === 'string',
  ) as TaskRecord[];
}

/** The shot's fields a task record sets (status, progress, and the result once completed). */
export function fromRecord(record: TaskRecord): Partial<Shot> {
  const status = (STATUSES.includes(record.status) ? record.status : 'queued') as ShotStatus;
  const waiting =
    record.waiting_for === 'upstream_capacity'
      ? `waiting for the provider's capacity${record.queue_position ? ` (#${record.queue_position} in your queue)` : ''}`
      : record.waiting_for === 'upstream_queue'
        ? `in the provider's queue${record.queue_position ? ` (#${record.queue_position})` : ''}`
        : undefined;
  const fields: Partial<Shot> = { status, progress: record.progress ?? (status === 'completed' ? 100 : 0) };
  for (const key of ['imageUrl', 'width', 'height', 'bytes', 'contentType', 'error'] as const) {
    if (record[key] !== undefined) Object.assign(fields, { [key]: record[key] });
  }
  return waiting ? { ...fields, waiting } : { ...fields, waiting: undefined };
}

/**
 * The shots of one tool result: a generation's (generate_image, refine_image, act_on_image: task_ids,
 * and the records when it waited) or a history page's (list_my_generations: items with image URLs).
 */
export function shotsOfResult(structured: unknown, origin: { label: string; prompt?: string }): Shot[] {
  if (!isRecord(structured)) return [];
  if (Array.isArray(structured.task_ids)) {
    const ids = structured.task_ids.filter((id): id is string => typeof id === 'string');
    const records = new Map(taskRecordsOf(structured.tasks).map((task) => [task.task_id, task]));
    return ids.map((taskId, i) => {
      const record = records.get(taskId);
      const label = ids.length > 1 ? `${origin.label}, image ${i + 1} of ${ids.length}` : origin.label;
      const shot: Shot = { key: taskId, taskId, status: 'queued', progress: 0, label };
      if (origin.prompt) shot.prompt = origin.prompt;
      return record ? { ...shot, ...fromRecord(record) } : shot;
    });
  }
  if (Array.isArray(structured.items)) return shotsOfHistory(structured.items);
  return [];
}

function shotsOfHistory(items: unknown[]): Shot[] {
  const shots: Shot[] = [];
  for (const item of items) {
    if (!isRecord(item) || typeof item.id !== 'string') continue;
    const { id, prompt, images } = item as unknown as HistoryItem;
    (images ?? []).forEach((imageUrl, i) => {
      const shot: Shot = {
        key: `${id}#${i}`,
        status: 'completed',
        progress: 100,
        label: (images?.length ?? 0) > 1 ? `${prompt ?? id}, image ${i + 1}` : (prompt ?? id),
        imageUrl,
      };
      // An action by generation id acts on its first image; the others have no id of their own here.
      if (i === 0) shot.generationId = id;
      if (prompt) shot.prompt = prompt;
      shots.push(shot);
    });
  }
  return shots;
}

/** The records of a batch_get_tasks (or get_task) result. */
export function recordsOfResult(structured: unknown): TaskRecord[] {
  if (!isRecord(structured)) return [];
  if (Array.isArray(structured.tasks)) return taskRecordsOf(structured.tasks);
  return taskRecordsOf([structured]);
}

/** "2048 × 2048 px · PNG · 3.1 MB": what a finished image is. */
export function describeSize(shot: Pick<Shot, 'width' | 'height' | 'contentType' | 'bytes'>): string {
  const parts: string[] = [];
  if (shot.width && shot.height) parts.push(`${shot.width} × ${shot.height} px`);
  if (shot.contentType) parts.push((shot.contentType.split('/')[1] ?? shot.contentType).toUpperCase());
  if (shot.bytes !== undefined) {
    parts.push(
      shot.bytes >= 1024 * 1024
        ? `${(shot.bytes / (1024 * 1024)).toFixed(1)} MB`
        : `${Math.max(1, Math.round(shot.bytes / 1024))} kB`,
    );
  }
  return parts.join(' · ');
}

/** The task's state in words, for its card. */
export function describeStatus(shot: Shot): string {
  switch (shot.status) {
    case 'queued':
      return shot.waiting ? `Queued: ${shot.waiting}` : 'Queued';
    case 'in_progress':
      return shot.waiting ? `Rendering, ${shot.waiting}` : `Rendering: ${shot.progress}%`;
    case 'completed':
      return 'Done';
    case 'failed':
      return `Failed: ${shot.error ?? 'no reason given'}`;
  }
}

/** Renditions Atelier serves under /files (?w=), for a srcset that spares a 4K download. */
const RENDITION_WIDTHS = [640, 960, 1280];

export function srcsetOf(shot: Pick<Shot, 'imageUrl' | 'width'>): string | undefined {
  if (!shot.imageUrl || !shot.width) return undefined;
  const width = shot.width;
  const url = shot.imageUrl;
  const smaller = RENDITION_WIDTHS.filter((w) => w < width).map((w) => `${url}?w=${w} ${w}w`);
  return smaller.length > 0 ? [...smaller, `${url} ${width}w`].join(', ') : undefined;
}
