// Value imports name their `.js` file: the unit test beside this file loads it under Node's type stripping.
import { assetAlt, captionOf } from '../../lib/text.js';
import type { LibraryAsset, SavedWork, TaskCard } from '../../lib/types';

/** What a work was asked with: the metadata panel shows it, "Reuse settings" puts it back in Create. */
export interface WorkSettings {
  prompt: string;
  model: string;
  mode: string;
  aspect: string;
  imageSize: string;
  count: number;
  source: 'web' | 'api';
  /** The request's reference images; undefined when the list the item came from does not carry them. */
  refs?: string[] | undefined;
  /** The first image's seed, when its model takes seeds (issue 45). */
  seed?: number | null | undefined;
  /** The action that made the work from its parent (`upscale`, …), with its options. */
  action?: string | null | undefined;
  actionOptions?: Record<string, unknown> | null | undefined;
  parentId?: string | undefined;
}

/** One image of the lightbox, whichever page's list it came from. */
export interface LightboxItem {
  /** Unique in the list (a task id, `work:task`, an asset id). */
  key: string;
  /** The original image; absent for a work with no image yet (failed or still rendering). */
  url?: string | undefined;
  /** The image's text alternative (its prompt, or what an upload is). */
  alt: string;
  width?: number | undefined;
  height?: number | undefined;
  bytes?: number | undefined;
  kind: 'result' | 'upload';
  /** An upload's file name (or "Upload of …"); null for results. */
  caption: string | null;
  /** The generation (saved work) it belongs to; null for uploads. */
  workId: string | null;
  /** The image's task (a refinement names it as its parent); absent where the list does not say. */
  taskId?: string | undefined;
  /** The seed this image was made with, where its list says (its task's record). */
  seed?: number | undefined;
  createdAt: number;
  settings?: WorkSettings | undefined;
  /** Why there is no image (a failure), shown in its place. */
  note?: string | undefined;
  /** Where focus goes when the lightbox closes on this item (its card's open button). */
  focusSelector: string;
}

/** The opening button of a card: inside the element that carries the id, or carrying it itself. */
const byAttribute = (name: string, value: string, button: string) => {
  const id = `[${name}="${CSS.escape(value)}"]`;
  return `${id} ${button}, ${button}${id}`;
};

/** Create's cards that have an image, in the page's order. */
export function itemsOfCards(cards: readonly TaskCard[]): LightboxItem[] {
  return cards
    .filter((card) => card.status === 'completed' && card.imageUrl)
    .map((card) => ({
      key: card.task_id,
      url: card.imageUrl,
      alt: card.prompt,
      width: card.width,
      height: card.height,
      bytes: card.bytes,
      kind: 'result',
      caption: null,
      workId: card.generation_id || null,
      taskId: card.task_id,
      seed: card.seed,
      createdAt: card.createdAt,
      settings: {
        prompt: card.prompt,
        model: card.model,
        mode: card.mode,
        aspect: card.aspect,
        imageSize: card.imageSize,
        count: card.count,
        source: card.source,
      },
      focusSelector: byAttribute('data-task-id', card.task_id, '.image-button'),
    }));
}

/** A saved work's settings, references included. */
export function settingsOfWork(work: SavedWork): WorkSettings {
  return {
    seed: work.seed,
    action: work.action,
    actionOptions: work.actionOptions,
    parentId: work.parentId,
    prompt: work.prompt,
    model: work.model,
    mode: work.mode,
    aspect: work.aspect,
    imageSize: work.imageSize,
    count: work.imageCount,
    source: work.source,
    refs: work.refs,
  };
}

/** Saved works, one item per image (a work with none yet is one item that says why). */
export function itemsOfWorks(works: readonly SavedWork[]): LightboxItem[] {
  return works.flatMap((work): LightboxItem[] => {
    const settings = settingsOfWork(work);
    const base = {
      alt: work.prompt,
      kind: 'result' as const,
      caption: null,
      workId: work.id,
      createdAt: work.createdAt,
      settings,
      focusSelector: byAttribute('data-work-id', work.id, '.work-cover'),
    };
    const done = work.tasks.filter((task) => task.status === 'completed' && task.imageUrl);
    if (done.length === 0) {
      const failed = work.tasks.find((task) => task.status === 'failed');
      return [
        {
          ...base,
          key: work.id,
          note: failed ? `No image: ${failed.error ?? 'the task failed'}.` : 'No image yet: still rendering.',
        },
      ];
    }
    return done.map((task) => ({
      ...base,
      key: `${work.id}:${task.task_id}`,
      taskId: task.task_id,
      seed: task.seed,
      url: task.imageUrl,
      width: task.width,
      height: task.height,
      bytes: task.bytes,
    }));
  });
}

/** The Library's assets, as listed. */
export function itemsOfAssets(assets: readonly LibraryAsset[]): LightboxItem[] {
  return assets.map((asset) => ({
    key: asset.id,
    url: asset.url,
    alt: assetAlt(asset),
    width: asset.width,
    height: asset.height,
    bytes: asset.bytes,
    kind: asset.kind,
    caption: asset.kind === 'upload' ? captionOf(asset) : null,
    workId: asset.generationId,
    createdAt: asset.createdAt,
    focusSelector: byAttribute('data-asset-id', asset.id, '.asset-thumb'),
  }));
}

/**
 * The in-app link to a work: `/works?work=<gen id>` opens that exact work (read by id) in Saved
 * works' lightbox, whatever the list shows. (Older links that also carry `q` still open it.)
 */
export function workLink(workId: string): string {
  return `/works?${new URLSearchParams({ work: workId }).toString()}`;
}
