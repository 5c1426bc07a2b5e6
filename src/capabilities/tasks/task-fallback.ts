import type { TaskFallback } from '../../infra/store/schema/tasks.js';
import type { ProviderFailure } from '../providers/index.js';
import type { StepContext } from './task-engine-deps.js';
import { routeIdOfRow } from './task-route.js';
import type { LeasedTask, TaskPatch } from './tasks-repository.js';

/**
 * Moves the task to its model's next upstream route when this submit failed with a retryable
 * fault that the upstream cannot have accepted (a refused connection, a 5xx answer, an open
 * circuit): the next step submits there at once. Routes only move forward, so a provider that
 * may have accepted a submit is never sent the task again. False when there is no next route.
 */
export async function fallBack(
  { deps, write }: Pick<StepContext, 'deps' | 'write'>,
  leased: LeasedTask,
  outcome: ProviderFailure,
  also: TaskPatch = {},
): Promise<boolean> {
  if (!outcome.retryable || outcome.maybeAccepted) return false;
  const { task } = leased;
  const routes = deps.routesOf?.(leased.generation.model) ?? [];
  const here = routes.findIndex((r) => r.id === routeIdOfRow(task));
  const next =
    here < 0 ? undefined : routes.slice(here + 1).find((route) => deps.providers.get(route.provider));
  if (!next) return false;
  // Kept on the task for the operator's log (issue 43): where it moved from, to, when and why.
  const earlier: TaskFallback[] = task.fallbacks_json ? JSON.parse(task.fallbacks_json) : [];
  const move = { from: routeIdOfRow(task), to: next.id, at: deps.clock.now(), error: outcome.message };
  const moved = await write(task, {
    ...also,
    fallbacks_json: JSON.stringify([...earlier, move]),
    provider: next.provider,
    upstream_model: next.upstreamModel,
    attempts: 0,
    needs_reconcile: 0,
    upstream_id: null,
    next_run_at: deps.clock.now(),
    lease_owner: null,
    lease_expires_at: null,
  });
  if (moved) {
    deps.metrics?.upstreamFallbacks.inc({ from: routes[here]?.provider ?? '', to: next.provider });
    deps.logger.warn(
      { taskId: task.id, from: routes[here]?.provider, to: next.provider, cause: outcome.cause },
      'upstream submit failed; moving the task to the next route',
    );
  }
  return moved;
}
