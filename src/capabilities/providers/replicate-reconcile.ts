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

/** One list page read: its candidates, and the next page's URL on the configured origin. */
type ListPage = { matches: Match[]; next: string | null } | ProviderFailure;

/** This process's memory of maybe-accepted creates and of which task owns which prediction. */
export class Reconciler {
  private readonly origin: string;
  /** Tasks whose create may have been accepted, by task id. */
  private readonly maybeAccepted = new Map<string, number>();
  /** Prediction id → task id for predictions this process created or adopted. */
  private readonly claims = new Map<string, string>();

  constructor(
    private readonly api: ReplicateApi,
    private readonly options: ReconcilerOptions,
  ) {
    this.origin = new URL(api.baseUrl).origin;
  }

  /** Whether this task's last create may have been accepted (this process's memory). */
  mayHoldPrediction(taskId: string): boolean {
    return this.maybeAccepted.has(taskId);
  }

  /** Remembers a create whose answer was lost. */
  markMaybeAccepted(taskId: string): void {
    rememberBounded(this.maybeAccepted, taskId, this.options.now());
  }

  /** Records that `predictionId` is `taskId`'s: the task's create is settled. */
  claim(taskId: string, predictionId: string): void {
    this.maybeAccepted.delete(taskId);
    rememberBounded(this.claims, predictionId, taskId);
  }

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
    // An input that cannot be told from another task's (an image tool's): adopting a match could
    // hand this task another image's result, so the create is made again (at worst paid twice).
    if (!built.identifying) return null;
    const createdAfter = new Date(this.options.now() - this.options.windowMs).toISOString();
    let url: string | null = `/v1/predictions?created_after=${encodeURIComponent(createdAfter)}`;
    const matches: Match[] = [];
    for (let page = 0; url && page < this.options.maxListPages; page++) {
      const read = await this.readPage(url, request, ref, built, apiKey);
      if ('kind' in read) return read;
      matches.push(...read.matches);
      // With a task-derived seed every match is this task's own: the newest pages hold the lost
      // create, so reading on (each page one more call that can fail) gains nothing.
      if (built.seeded && matches.length > 0) break;
      url = read.next;
    }
    if (matches.length === 0) return null;
    matches.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const [adopted, ...extra] = matches;
    if (built.seeded) await this.cancelDuplicates(extra, apiKey, request.signal);
    return adopted?.id ?? null;
  }

  /** One page of the account's predictions: the candidates for `request`'s lost create. */
  private async readPage(
    url: string,
    request: ProviderRequest,
    ref: ModelRef,
    built: BuiltInput,
    apiKey: string,
  ): Promise<ListPage> {
    const answer = await this.api.call(apiKey, url, 'GET', request.signal);
    if (answer.kind === 'transport_error')
      return { ...transportFailure('Replicate', answer), maybeAccepted: true };
    if (answer.status < 200 || answer.status >= 300)
      return { ...this.api.errorFailure(answer), maybeAccepted: true };
    const json = parseJson(answer.body);
    if (!isRecord(json) || !Array.isArray(json.results)) {
      return replicateFailure('the prediction list is unreadable', {
        retryable: true,
        maybeAccepted: true,
        cause: 'bad_response',
      });
    }
    const matches: Match[] = [];
    for (const p of json.results) {
      if (this.isCandidate(p, request, ref, built))
        matches.push({ id: p.id, createdAt: String(p.created_at ?? ''), status: p.status });
    }
    // Only follow cursors on the configured origin: the token must not travel anywhere else.
    const next: unknown = json.next;
    return { matches, next: typeof next === 'string' && next.startsWith(`${this.origin}/`) ? next : null };
  }

  /** Whether a prediction in a list answer is a candidate for `request`'s lost create. */
  private isCandidate(
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
    const owner = this.claims.get(p.id);
    if (owner !== undefined && owner !== request.taskId) return false;
    const theirs = p.input;
    return Object.entries(built.input).every(
      ([key, value]) => built.fileKeys.includes(key) || isDeepStrictEqual(theirs[key], value),
    );
  }

  /** With a task-derived seed the extras are certainly this task's too: stop paying for them. */
  private async cancelDuplicates(duplicates: Match[], apiKey: string, signal: AbortSignal) {
    for (const duplicate of duplicates) {
      if (duplicate.status === 'starting' || duplicate.status === 'processing') {
        await this.api
          .call(apiKey, `/v1/predictions/${duplicate.id}/cancel`, 'POST', signal)
          .catch(() => undefined);
      }
    }
  }
}

/** The reconciler of one Replicate adapter. */
export function createReconciler(api: ReplicateApi, options: ReconcilerOptions): Reconciler {
  return new Reconciler(api, options);
}
