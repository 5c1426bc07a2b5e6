import type { Transaction } from 'kysely';
import { DomainError } from '../../base/domain/errors.js';
import { markTask } from '../../base/observability/stage-timing.js';
import { extensionOf } from '../../infra/blobs/blob-store.js';
import { pngDimensions } from '../../infra/images/png-header.js';
import { sharp } from '../../infra/images/sharp.js';
import type { Database } from '../../infra/store/schema.js';
import type { AnsweredTurn, ImageProvider, ImageUsage, ProviderImage } from '../providers/index.js';
import { completedCost } from './task-cost.js';
import type { StepContext } from './task-engine-deps.js';
import { traceResultStore } from './task-traces.js';
import type { LeasedTask, TaskPatch } from './tasks-repository.js';

const contentTypeOfFormat: Record<string, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/** The result's bytes, or why its URL could not be read (the upstream's URL, fetched safely). */
export async function fetchResult(
  deps: StepContext['deps'],
  provider: ImageProvider,
  image: ProviderImage,
  signal: AbortSignal,
): Promise<Buffer | string> {
  if ('bytes' in image) return image.bytes;
  try {
    return await deps.downloadImage(image.url, signal);
  } catch (error) {
    // The fetcher's messages name "the result URL" (the subject it is given) and are caller-safe.
    const reason = error instanceof DomainError ? error.message : 'download failed';
    return `Could not download the result from ${provider.name} (${reason})`;
  }
}

/** What the upstream answered beside the image: its usage and its conversation turn. */
export interface ResultExtras {
  usage?: ImageUsage | undefined;
  turn?: AnsweredTurn | undefined;
}

/**
 * Copies a result into blob storage and records it as an asset (and the upstream's turn, kept for a
 * later refinement: task-turns.ts), then marks the task completed.
 */
export function rehostResult(
  context: Pick<StepContext, 'deps' | 'write' | 'fail'>,
  leased: LeasedTask,
  bytes: Buffer,
  extras: ResultExtras,
  keyId: string | undefined,
  also: TaskPatch = {},
): Promise<void> {
  const { deps } = context;
  return traceResultStore(deps.tracing, leased.task, deps.clock, () =>
    storeResult(context, leased, bytes, extras, keyId, also),
  );
}

async function storeResult(
  { deps, write, fail }: Pick<StepContext, 'deps' | 'write' | 'fail'>,
  leased: LeasedTask,
  bytes: Buffer,
  { usage, turn }: ResultExtras,
  keyId: string | undefined,
  also: TaskPatch,
): Promise<void> {
  const { task } = leased;
  // A PNG's header chunk is read here; other formats (and a PNG whose header is not whole) by
  // libvips' header reader, a round trip through the thread pool per result.
  const png = pngDimensions(bytes);
  const meta = png
    ? { format: 'png', ...png, pageHeight: undefined }
    : await sharp(bytes, { limitInputPixels: false }).metadata();
  const contentType = contentTypeOfFormat[meta.format ?? ''];
  if (!contentType || !meta.width || !meta.height) {
    await fail(
      task,
      `The upstream returned a result that is not an image (${meta.format ?? 'unknown format'})`,
    );
    return;
  }
  const key = `results/${task.id}.${extensionOf(contentType)}`;
  await deps.blobs.put(key, bytes, contentType);
  if (turn && deps.turns) await deps.turns.keep(leased, key, turn);
  const url = deps.blobUrl(key);
  const height = meta.pageHeight ?? meta.height;
  markTask(task.id, 'store');
  // The result's asset commits with the write that ends the task (one commit, not two; none when
  // the lease was lost): the task never reads completed without it.
  const asset = {
    accountId: task.account_id,
    generationId: task.generation_id,
    taskId: task.id,
    blobKey: key,
    url,
    contentType,
    bytes,
    width: meta.width,
    height,
  };
  const withAsset = (trx: Transaction<Database>) => deps.assets.recordResult(trx, asset);
  await write(
    task,
    {
      ...also,
      status: 'completed',
      progress: 100,
      image_url: url,
      blob_key: key,
      width: meta.width,
      height,
      content_type: contentType,
      bytes: bytes.length,
      error: null,
      usage_json: usage ? JSON.stringify(usage) : null,
      ...completedCost(deps.routesOf, leased, usage),
      ...(keyId ? { upstream_key_id: keyId } : {}),
      finished_at: deps.clock.now(),
      lease_owner: null,
      lease_expires_at: null,
    },
    withAsset,
  );
  markTask(task.id, 'final');
}
