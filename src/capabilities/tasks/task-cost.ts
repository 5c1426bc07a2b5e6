import { IMAGE_QUALITIES } from '../../base/domain/image-qualities.js';
import type { UpstreamRoute } from '../catalog/index.js';
import { costOfImage, type ImageCost } from '../catalog/index.js';
import type { ImageUsage } from '../providers/index.js';
import { routeIdOfRow } from './task-route.js';
import type { LeasedTask, TaskPatch } from './tasks-repository.js';

/**
 * What a completed task cost, as columns of its final write: from the upstream's token figures ×
 * its route's token prices when it reported them, else the route's per-image price for the size;
 * null (unknown) when the route the task ran on has no price. Only completion writes a cost: a
 * failed task costs nothing (docs/operations.md, "Prices and budgets").
 */
export function completedCost(
  routesOf: ((modelId: string) => readonly UpstreamRoute[]) | undefined,
  leased: LeasedTask,
  usage: ImageUsage | undefined,
): Pick<TaskPatch, 'cost_micros' | 'cost_source' | 'cost_absorbed_micros'> {
  const { task, generation } = leased;
  const route = routesOf?.(generation.model).find((r) => r.id === routeIdOfRow(task));
  const quality = IMAGE_QUALITIES.find((q) => q === generation.quality);
  const cost: ImageCost | undefined = costOfImage(route?.price, generation.image_size, usage, quality);
  // Under a quote the account is never charged more than its cap: the rest is absorbed, on record.
  const cap = task.cost_cap_micros;
  if (cost && cap !== null && cap !== undefined && cost.micros > Number(cap)) {
    return {
      cost_micros: Number(cap),
      cost_source: cost.source,
      cost_absorbed_micros: cost.micros - Number(cap),
    };
  }
  return { cost_micros: cost?.micros ?? null, cost_source: cost?.source ?? null, cost_absorbed_micros: null };
}
