import { createHmac, timingSafeEqual } from 'node:crypto';
import type { OpenAiImageTask, ResponseFormat } from '../../base/contract/openai.js';
import { NotFound } from '../../base/domain/errors.js';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { ImagePlan, ImageRequests, Submitted } from './image-requests.js';
import { OpenAiCompatError, openAiErrorBody } from './openai-errors.js';

/**
 * The asynchronous mode of the OpenAI image routes (`Prefer: respond-async` or `async: true`): the
 * request is submitted as any other, answered at once (202) with an envelope naming its tasks, and
 * read later with GET /v1/images/{generations|edits}/{id}, which answers the synchronous body once
 * every task has ended. Nothing is stored for it: the id carries what the GET needs (the kind,
 * the second it was accepted, the response_format asked, the task ids), and the tasks' own
 * records (read for the caller's account only) say the rest. An id is read back only if Atelier
 * issued it to this account (issue 38): it ends in an HMAC of its contents under a key derived from
 * the master key, bound to the account.
 */

/** Authenticates an id's contents for one account: their tag. */
export type ImageTaskSeal = (contents: string) => string;

/** The seal of one account's ids: HMAC-SHA-256 (128-bit tag) under a key bound to the account. */
export function imageTaskSeal(key: Buffer, accountId: string): ImageTaskSeal {
  const bound = createHmac('sha256', key).update(`openai-image-tasks\0${accountId}`).digest();
  return (contents) =>
    createHmac('sha256', bound).update(contents).digest().subarray(0, 16).toString('base64url');
}

export type ImageTaskKind = 'generation' | 'edit';

/** What an id carries. */
export interface ImageTaskRef extends Submitted {
  kind: ImageTaskKind;
  responseFormat: ImagePlan['responseFormat'];
}

const ID_PREFIX = 'imgtask_';
const ID_VERSION = 1;
/** Most tasks an id may name (a request makes at most the catalog's maxCount, far fewer). */
const MAX_IDS = 64;
const KIND_LETTERS: Record<ImageTaskKind, string> = { generation: 'g', edit: 'e' };
const FORMATS: ReadonlyArray<ResponseFormat | 'both'> = ['url', 'b64_json', 'both'];

/** The opaque id of an asynchronous request: `imgtask_` + base64url of a versioned JSON array + `.` tag. */
export function imageTaskId(ref: ImageTaskRef, seal: ImageTaskSeal): string {
  const fields = [ID_VERSION, KIND_LETTERS[ref.kind], ref.created, ref.responseFormat, ...ref.ids];
  const contents = Buffer.from(JSON.stringify(fields)).toString('base64url');
  return `${ID_PREFIX}${contents}.${seal(contents)}`;
}

/** An id read back; undefined for anything imageTaskId did not make for this seal's account. */
export function imageTaskRef(id: string, seal: ImageTaskSeal): ImageTaskRef | undefined {
  if (!id.startsWith(ID_PREFIX) || id.length > 8 * 1024) return undefined;
  const dot = id.lastIndexOf('.');
  if (dot <= ID_PREFIX.length) return undefined;
  const contents = id.slice(ID_PREFIX.length, dot);
  const given = Buffer.from(id.slice(dot + 1));
  const expected = Buffer.from(seal(contents));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(contents, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields)) return undefined;
  const [version, letter, created, format, ...ids] = fields as unknown[];
  const kind = (Object.keys(KIND_LETTERS) as ImageTaskKind[]).find((k) => KIND_LETTERS[k] === letter);
  const valid =
    version === ID_VERSION &&
    kind !== undefined &&
    Number.isSafeInteger(created) &&
    FORMATS.includes(format as ResponseFormat) &&
    ids.length > 0 &&
    ids.length <= MAX_IDS &&
    ids.every((task) => typeof task === 'string' && /^[\w-]{1,64}$/.test(task));
  if (!valid) return undefined;
  return {
    kind,
    created: created as number,
    responseFormat: format as ImageTaskRef['responseFormat'],
    ids: ids as string[],
  };
}

/** True when a Prefer header (RFC 7240; repeated lines arrive joined by commas) asks respond-async. */
export function prefersAsync(header: string | string[] | undefined): boolean {
  const lines = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return lines
    .flatMap((line) => line.split(','))
    .some((preference) => preference.split(/[;=]/)[0]?.trim().toLowerCase() === 'respond-async');
}

const envelope = (ref: ImageTaskRef, seal: ImageTaskSeal) => ({
  id: imageTaskId(ref, seal),
  object: ref.kind === 'edit' ? ('image.edit.task' as const) : ('image.generation.task' as const),
  created: ref.created,
  task_ids: ref.ids,
});

/** The 202 answer of an accepted request: its id, queued, no images yet. */
export function acceptedImageTask(ref: ImageTaskRef, seal: ImageTaskSeal): OpenAiImageTask {
  return { ...envelope(ref, seal), status: 'queued', data: [] };
}

/**
 * The state of an asynchronous request for its owner: queued or in_progress with the task records,
 * then completed with the synchronous answer's fields (as its response_format asked), or failed with
 * the error the synchronous request would have answered. `waitMs` > 0 first waits for every task to
 * end, at most that long (`onWait` gets the wait's stop). Another account's (or no such) id → 404.
 */
export async function readImageTask(
  images: Pick<ImageRequests, 'records' | 'wait' | 'answer'>,
  accountId: string,
  seal: ImageTaskSeal,
  id: string,
  waitMs: number,
  onWait: (stop: () => void) => void,
): Promise<OpenAiImageTask> {
  const ref = imageTaskRef(id, seal);
  let records = ref && (await images.records(accountId, ref.ids));
  if (!ref || !records) throw new NotFound(`No image request ${id.slice(0, 80)}`);
  const final = () => records?.every((record) => isFinalStatus(record.status)) ?? false;
  if (waitMs > 0 && !final()) {
    const wait = images.wait(accountId, ref.ids, waitMs);
    onWait(wait.stop);
    records = (await wait.outcome).records;
  }
  const base = { ...envelope(ref, seal), tasks: records };
  if (!final()) {
    const started = records.some((record) => record.status !== 'queued');
    return { ...base, status: started ? 'in_progress' : 'queued', data: [] };
  }
  try {
    const answer = await images.answer(ref.responseFormat, ref.created, records);
    return { ...base, ...answer, status: 'completed' };
  } catch (error) {
    if (!(error instanceof OpenAiCompatError)) throw error;
    const { error: body } = openAiErrorBody(error.status, error.code, error.message, error.param);
    return { ...base, status: 'failed', data: [], error: body };
  }
}
