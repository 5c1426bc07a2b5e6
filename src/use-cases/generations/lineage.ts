import type { GenerateBody } from '../../base/contract/generate-body.js';
import { Gone, InvalidInput } from '../../base/domain/errors.js';
import type { TasksTable } from '../../infra/store/schema/tasks.js';

/**
 * Lineage (issue 44): a generate request may name the work it refines (`parentId`, a generation or
 * one of its images) with the turn's instruction. The parent's image becomes the request's first
 * reference, so every provider edits it; the new generation and its tasks record the parent.
 * Deleting a version never touches its parent (nothing cascades: a removal only marks its own row).
 */

/** The image a refinement starts from: its generation, its task and its URL. */
export interface ParentImage {
  id: string;
  taskId: string;
  imageUrl: string;
  /** The image's stored size and blob (an action reads them); null when not on record. */
  width: number | null;
  height: number | null;
  blobKey: string | null;
}

type ParentTaskRow = Pick<
  TasksTable,
  'id' | 'generation_id' | 'status' | 'image_url' | 'width' | 'height' | 'blob_key'
>;

/** What finding a parent reads: the account's tasks by id, a generation's tasks, and ownership. */
export interface ParentReads {
  findManyForAccount(accountId: string, taskIds: readonly string[]): Promise<ParentTaskRow[]>;
  findByGenerations(generationIds: readonly string[]): Promise<ParentTaskRow[]>;
  /** The account's generations (not rejected) among `generationIds`. */
  ownedBy(accountId: string, generationIds: string[]): Promise<Set<string>>;
  /** Whether the account's work's files were removed by the lifecycle (deleted or expired). */
  isPurged(accountId: string, generationId: string): Promise<boolean>;
}

const refused = (message: string) => new InvalidInput(`parentId ${message}`, 'parentId');

/**
 * The image `parentId` names, if it is the account's and completed: a task id (`tsk_…`) names that
 * image; a generation id (`gen_…`) names its first completed image. Another account's id reads
 * exactly as an unknown one. A work of the account whose files the lifecycle removed (deleted past
 * its Undo window, or expired) is 410 gone: its image cannot be refined.
 */
export async function findParent(
  reads: ParentReads,
  accountId: string,
  parentId: string,
): Promise<ParentImage> {
  let task: ParentTaskRow | undefined;
  if (parentId.startsWith('tsk_')) {
    [task] = await reads.findManyForAccount(accountId, [parentId]);
    if (!task) throw refused('names no image of this account');
  } else if (parentId.startsWith('gen_') && (await reads.ownedBy(accountId, [parentId])).has(parentId)) {
    const tasks = await reads.findByGenerations([parentId]);
    task = tasks.find((t) => t.status === 'completed' && t.image_url) ?? tasks[0];
  } else {
    throw refused('names no work of this account (a generation id gen_… or an image’s task id tsk_…)');
  }
  if (task && (await reads.isPurged(accountId, task.generation_id)))
    throw new Gone(
      'parentId names a work whose files were removed (deleted or expired); its image can no longer be refined',
    );
  if (task?.status !== 'completed' || !task.image_url)
    throw refused('names a work with no finished image yet: refine it once it has completed');
  return {
    id: task.generation_id,
    taskId: task.id,
    imageUrl: task.image_url,
    width: task.width,
    height: task.height,
    blobKey: task.blob_key,
  };
}

/**
 * The body a refinement is checked as: the parent's image first among the references (not twice),
 * and, when the caller named no mode, an edit (a fusion when it adds references of its own).
 */
export function refinementBody(body: GenerateBody, parent: ParentImage): GenerateBody {
  const imageUrls = [parent.imageUrl, ...(body.imageUrls ?? []).filter((url) => url !== parent.imageUrl)];
  return { ...body, imageUrls, mode: body.mode ?? (imageUrls.length > 1 ? 'fusion' : 'edit') };
}
