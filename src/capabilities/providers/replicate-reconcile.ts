/**
 * Reconciliation: never two predictions for one task. A create whose answer was lost (timeout,
 * reset, gateway error, unreadable 2xx) is remembered as maybe accepted; the next submit of that
 * task (flagged `reconcile: true` by the engine, or remembered by this process) first lists the
 * account's predictions of the last hour and adopts the one created for this task instead of
 * creating another. A prediction is recognised by its model and its exact non-file input; where the
 * model takes a `seed`, it is derived from the task id, which makes the input unique per task.
 * Without a seed, identical sibling tasks are told apart only by the predictions this process
 * already knows belong to other tasks (documented in docs/providers.md).
 */
import { isDeepStrictEqual } from 'node:util';
import type { ProviderFailure, ProviderRequest } from './provider.js';
import { type ModelRef, type ReplicateApi, rememberBounded, replicateFailure } from './replicate-api.js';
import type { BuiltInput } from './replicate-inputs.js';
import { transportFailure } from './upstream-call.js';
import { isRecord, parseJson } from './upstream-json.js';

export interface ReconcilerOptions {
  /** How far back to look for a lost prediction (outputs expire after an hour). */
  windowMs: number;
  /** Most list pages to read (100 predictions each). */
  maxListPages: number;
  now: () => number;
}

interface Match {
  id: string;
  createdAt: string;
  status: unknown;
}

/** This process's memory of maybe-accepted creates and of which task owns which prediction. */
export function createReconciler(api: ReplicateApi, { windowMs, maxListPages, now }: ReconcilerOptions) {
  const origin = new URL(api.baseUrl).origin;
  /** Tasks whose create may have been accepted, by task id. */
  const maybeAccepted = new Map<string, number>();
  /** Prediction id → task id for predictions this process created or adopted. */
  const claims = new Map<string, string>();

  /** Whether a prediction in a list answer is a candidate for `request`'s lost create. */
  function isCandidate(
    p: unknown,
    request: ProviderRequest,
    ref: ModelRef,
    built: BuiltInput,
  ): p is Record<string, unknown> & { id: string } {
    if (!isRecord(p) || typeof p.id !== 'string' || !isRecord(p.input)) return false;
    if (typeof p.model === 'string' && p.model.toLowerCase() !== `${ref.owner}/${ref.name}`.toLowerCase())
      return false;
    if (ref.version && typeof p.version === 'string' && p.version !== ref.version) return false;
    if (p.source === 'web') return false;
    const owner = claims.get(p.id);
    if (owner !== undefined && owner !== request.taskId) return false;
    const theirs = p.input;
    return Object.entries(built.input).every(
      ([key, value]) => built.fileKeys.includes(key) || isDeepStrictEqual(theirs[key], value),
    );
  }

  /** With a task-derived seed the extras are certainly this task's too: stop paying for them. */
  async function cancelDuplicates(duplicates: Match[], apiKey: string, signal: AbortSignal) {
    for (const duplicate of duplicates) {
      if (duplicate.status === 'starting' || duplicate.status === 'processing') {
        await api
          .call(apiKey, `/v1/predictions/${duplicate.id}/cancel`, 'POST', signal)
          .catch(() => undefined);
      }
    }
  }

  return {
    /** Whether this task's last create may have been accepted (this process's memory). */
    mayHoldPrediction(taskId: string): boolean {
      return maybeAccepted.has(taskId);
    },

    /** Remembers a create whose answer was lost. */
    markMaybeAccepted(taskId: string): void {
      rememberBounded(maybeAccepted, taskId, now());
    },

    /** Records that `predictionId` is `taskId`'s: the task's create is settled. */
    claim(taskId: string, predictionId: string): void {
      maybeAccepted.delete(taskId);
      rememberBounded(claims, predictionId, taskId);
    },

    /**
     * Looks for the prediction an earlier, lost create made for this task. Returns its id, null when
     * there is none, or a failure when the upstream cannot be asked right now.
     */
    async findLostPrediction(
      request: ProviderRequest,
      ref: ModelRef,
      built: BuiltInput,
      apiKey: string,
    ): Promise<string | null | ProviderFailure> {
      const createdAfter = new Date(now() - windowMs).toISOString();
      let url: string | null = `/v1/predictions?created_after=${encodeURIComponent(createdAfter)}`;
      const matches: Match[] = [];
      for (let page = 0; url && page < maxListPages; page++) {
        const answer = await api.call(apiKey, url, 'GET', request.signal);
        if (answer.kind === 'transport_error')
          return { ...transportFailure('Replicate', answer), maybeAccepted: true };
        if (answer.status < 200 || answer.status >= 300)
          return { ...api.errorFailure(answer), maybeAccepted: true };
        const json = parseJson(answer.body);
        if (!isRecord(json) || !Array.isArray(json.results)) {
          return replicateFailure('the prediction list is unreadable', {
            retryable: true,
            maybeAccepted: true,
            cause: 'bad_response',
          });
        }
        for (const p of json.results) {
          if (isCandidate(p, request, ref, built))
            matches.push({ id: p.id, createdAt: String(p.created_at ?? ''), status: p.status });
        }
        // With a task-derived seed every match is this task's own: the newest pages hold the lost
        // create, so reading on (each page one more call that can fail) gains nothing.
        if (built.seeded && matches.length > 0) break;
        // Only follow cursors on the configured origin: the token must not travel anywhere else.
        const next: unknown = json.next;
        url = typeof next === 'string' && next.startsWith(`${origin}/`) ? next : null;
      }
      if (matches.length === 0) return null;
      matches.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      const [adopted, ...extra] = matches;
      if (built.seeded) await cancelDuplicates(extra, apiKey, request.signal);
      return adopted?.id ?? null;
    },
  };
}

export type Reconciler = ReturnType<typeof createReconciler>;
