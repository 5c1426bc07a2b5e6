/**
 * The upstream provider port. A provider turns one task (one image) into one image.
 *
 * Two shapes of upstream fit behind it:
 * - asynchronous upstreams (Replicate, the `local` renderer): `submit` is quick and returns
 *   `pending` with the upstream's own id; the engine then calls `poll` until it ends.
 * - synchronous upstreams (Gemini, OpenAI): `submit` does the whole call and returns `done`.
 *
 * Expected outcomes (refusals, quota, timeouts) are data, never exceptions: a thrown error
 * is a bug and the engine treats it as a retryable failure.
 */

import type { GenerationMode } from '../../base/domain/generation-modes.js';
import type { ActionSettings } from '../../base/domain/image-actions.js';
import type { ImageQuality } from '../../base/domain/image-qualities.js';
import type { ImageSize } from '../../base/domain/image-sizes.js';

/** A reference image, already fetched, checked and stored by Atelier. */
export interface ReferenceImage {
  bytes: Buffer;
  contentType: string;
  width: number;
  height: number;
}

/**
 * One part of the model's side of a turn, as the upstream answered it: a text, or the answer's
 * image (the task's result, kept by reference, never as bytes here), each with the signature the
 * upstream put on it (Gemini 3's `thoughtSignature`, sent back unchanged in a later turn).
 */
export type AnsweredPart =
  | { text: string; thoughtSignature?: string }
  | { image: true; thoughtSignature?: string };

/** The model's side of the turn an upstream answered (kept with the task, see task-turns.ts). */
export interface AnsweredTurn {
  parts: AnsweredPart[];
}

/** An earlier turn of the conversation a refinement continues, its images loaded. */
export interface ConversationTurn {
  user: { prompt: string; references: ReferenceImage[] };
  model: Array<
    { text: string; thoughtSignature?: string } | { image: ReferenceImage; thoughtSignature?: string }
  >;
}

/** What one task asks of its provider. */
export interface ProviderRequest {
  /** Atelier's task id: stable across retries, usable as an idempotency key upstream. */
  taskId: string;
  /** The catalog's `upstreamModel` for the public model id. */
  upstreamModel: string;
  mode: GenerationMode;
  prompt: string;
  /** `W:H`, e.g. `16:9`. */
  aspect: string;
  /**
   * true for an edit or fusion whose caller named no aspect: the result keeps the (first)
   * reference's shape, as the providers do by default (Gemini chooses from the references when no
   * `aspectRatio` is sent, Replicate models take `match_input_image`, OpenAI gets the offered size
   * nearest the reference's ratio). `aspect` then holds the catalog ratio nearest the reference.
   */
  keepReferenceAspect?: boolean;
  imageSize: ImageSize;
  /** Target pixel size that `aspect` × `imageSize` give (sides multiples of 16). */
  width: number;
  height: number;
  /** Position of this image inside its generation (0-based); lets a renderer vary per image. */
  index: number;
  references: ReferenceImage[];
  /**
   * The earlier turns (oldest first) of the conversation this refinement continues: set only when
   * the refined image's own task kept its turn on this provider and model (a Gemini answer). The
   * last turn's model image is then the parent image, which `references` no longer repeats.
   */
  history?: ConversationTurn[];
  /**
   * An edit's mask (catalog `masks`): a PNG the size of the first reference whose fully transparent
   * pixels (alpha 0) say where to edit; the rest of the image is kept.
   */
  mask?: ReferenceImage;
  /** The quality tier the request asked for (catalog `qualities`); absent: the provider's default. */
  quality?: ImageQuality;
  /**
   * An action on a finished image (issue 45; the route is a catalog entry with `action`): the first
   * reference is the picked image (for `expand`, its padded canvas, with `mask` marking the new
   * border). For `upscale`, `width` × `height` are the reference's size × `scale`; for the others,
   * the reference's size. Absent: a plain generation.
   */
  action?: ActionSettings;
  /**
   * The seed of this image (catalog `seeds`: only routes whose upstream takes one get it): the same
   * seed with the same request gives the same image where the upstream is deterministic.
   */
  seed?: number;
  /** The account's or the deployment's upstream key; null for providers that need none. */
  apiKey: string | null;
  /** Aborted when the engine gives up on the call (timeout, shutdown, cancel). */
  signal: AbortSignal;
  /**
   * Whose work this is (the account's id): a provider that queues work in this process (the
   * `local` renderer's CPU pool) serves the keys in turn. Absent means one shared queue.
   */
  fairnessKey?: string;
  /**
   * Set by the engine on a submit that follows a failure with `maybeAccepted: true`: an
   * asynchronous provider must first look for the job that earlier attempt may have started
   * (and adopt it) instead of starting a second one. Synchronous providers ignore it.
   */
  reconcile?: boolean;
  /**
   * Partial frames the caller wants while the image renders (OpenAI's `partial_images`, 0-3), and
   * how many the task has stored. A provider that can make real intermediate frames returns the
   * next one with a pending poll (`partial`); others ignore both. Absent = none wanted.
   */
  partialImages?: number;
  partialFrames?: number;
}

/** A partial frame of an image still rendering (a coarser version of the final image). */
export interface PartialFrame {
  bytes: Buffer;
  contentType: string;
}

/**
 * Token usage the upstream reported for one image; never invented. One neutral shape for every
 * adapter, stored as is on the task (`tasks.usage_json`) and mapped by each edge onto its own wire
 * shape. Its names are OpenAI's `usage` (the first adapter to report it); Gemini's `usageMetadata`
 * maps onto it: input ← promptTokenCount, output ← candidatesTokenCount, total ← totalTokenCount,
 * the input details ← promptTokensDetails' TEXT and IMAGE entries, thinking ← thoughtsTokenCount.
 */
export interface ImageUsage {
  /** Prompt tokens: text and images. */
  input_tokens: number;
  /** Tokens of the answer the model produced (the image, any text). */
  output_tokens: number;
  /** All tokens of the call: input + output, and thinking where the model thought. */
  total_tokens: number;
  input_tokens_details?: { image_tokens: number; text_tokens: number };
  /** Tokens the model spent thinking (Gemini 3's thoughtsTokenCount), counted in total only. */
  thinking_tokens?: number;
}

/** An image produced upstream: inline bytes, or a URL that the engine copies at once. */
export type ProviderImage = { bytes: Buffer; contentType?: string } | { url: string };

/**
 * Why an upstream call failed. The circuit breaker counts only the causes that say the upstream
 * itself is unwell (`upstream_error`, `network`, `timeout`, `bad_response`), not one account's bad
 * key or quota, a refused prompt, or the engine's own abort.
 */
export type FailureCause =
  /** Slow down (429, RESOURCE_EXHAUSTED): the task waits for capacity, spending no attempt. */
  | 'rate_limited'
  /** The upstream account's balance or billing limit is spent: no wait fixes it. */
  | 'quota_exhausted'
  | 'upstream_error'
  | 'network'
  | 'timeout'
  | 'bad_response'
  | 'unauthorized'
  | 'blocked'
  | 'invalid_request'
  | 'canceled'
  | 'circuit_open'
  /** The upstream answered that the model does not exist (shut down, renamed, or never there). */
  | 'model_not_found';

/**
 * What an answer said of the key's budget of requests (OpenAI's `x-ratelimit-*-requests`, read on
 * every answer): the engine paces the pool's calls so that the budget is never overdrawn.
 */
export interface RequestQuota {
  /** Requests the budget holds when whole (OpenAI's requests per minute). */
  limit: number;
  /** Requests left when the answer was written. */
  remaining: number;
  /** Milliseconds until the budget is whole again. */
  resetMs: number;
  /**
   * When the answer was read (ms). Calls that start after it count against the budget: a pool
   * that learns it later (the answer's image stored first, a loaded node) must count them too.
   */
  readAt?: number;
}

export interface ProviderFailure {
  kind: 'failed';
  /** Human-readable, includes the upstream's own message. */
  message: string;
  /** true for 429, 5xx, network faults: the engine retries with backoff. */
  retryable: boolean;
  /** From `Retry-After` when the upstream sent it (or the reset of the limit a refusal exhausted). */
  retryAfterMs?: number;
  /**
   * A rate limit the upstream marked as a limit on time (per minute, per day: OpenAI's
   * `x-ratelimit-remaining-*` at 0, Gemini's `QuotaFailure`, Replicate's throttling): the pool waits
   * for its reset and keeps its limit on calls at once. Absent: the refusal says nothing of which.
   */
  timeLimit?: boolean;
  /** The key's request budget as the answer's headers gave it. */
  quota?: RequestQuota;
  /**
   * true when the request may have reached the upstream and been accepted (a timeout after the
   * body was sent): the engine must not resubmit blindly.
   */
  maybeAccepted?: boolean;
  cause?: FailureCause;
}

export type SubmitOutcome =
  | { kind: 'done'; image: ProviderImage; usage?: ImageUsage; quota?: RequestQuota; turn?: AnsweredTurn }
  | { kind: 'pending'; upstreamId: string; progress?: number; quota?: RequestQuota }
  | ProviderFailure;

export type PollOutcome =
  | { kind: 'done'; image: ProviderImage; usage?: ImageUsage }
  | {
      kind: 'pending';
      status: 'queued' | 'in_progress';
      progress?: number;
      partial?: PartialFrame;
      /** Its place in the upstream's own queue while `queued` there (1 = next), where the upstream says. */
      queuePosition?: number;
      /**
       * The job moved: the provider queued it again under this id (a ComfyUI server that went away,
       * the task's prompt queued on another server of the pool). Later polls use it.
       */
      upstreamId?: string;
    }
  | ProviderFailure;

/** Which of some upstream model names the provider's model list has, or why it could not be read. */
export type ModelPresence =
  | {
      present: string[];
      missing: string[];
      /** Shutdown days (`YYYY-MM-DD`) the list itself announces, by model (OpenAI's `shutdown_date`). */
      shutdowns?: Record<string, string>;
      /** Every model id the provider's list names (where it has a whole list: Gemini, OpenAI). */
      listed?: string[];
    }
  | { error: string };

/** A circuit breaker's state as an operator reads it (this node's: breakers are per process). */
export interface CircuitReport {
  state: 'closed' | 'open' | 'half_open';
  /** Upstream failures in a row since the last success. */
  consecutiveFailures: number;
  /** Milliseconds until a probe is let through while open; 0 otherwise. */
  msUntilProbe: number;
}

export interface ImageProvider {
  /** The provider name used in the catalog: `local`, `gemini`, `openai`, `replicate`, `fal`, or an OpenAI-compatible upstream's name. */
  readonly name: string;
  /** false for providers that need no key (the local renderer). */
  readonly requiresKey: boolean;
  /**
   * true when `submit` is quick (it only enqueues upstream), so the generate request may call
   * it inline and report an upstream refusal as 500 `upstream_error` at once.
   */
  readonly submitsInline: boolean;
  /** How often the engine polls a pending job (default: backoff from 1 s to 5 s). */
  readonly pollIntervalMs?: number;
  /** Expected duration of one image, for progress estimates while a synchronous call runs. */
  expectedDurationMs(request: Pick<ProviderRequest, 'upstreamModel' | 'imageSize'>): number;
  submit(request: ProviderRequest): Promise<SubmitOutcome>;
  /** Only called for tasks whose submit answered `pending`. */
  poll(request: ProviderRequest & { upstreamId: string }): Promise<PollOutcome>;
  /**
   * false while the provider's circuit breaker is open: the generate route answers 500
   * `upstream_error` "provider X unavailable" at once. Absent means always available.
   */
  available?(): boolean;
  /** The circuit breaker's state on this node, where the provider has one (the operator console shows it). */
  circuit?(): CircuitReport;
  /**
   * Asks the provider's model list (or model endpoint) which of `models` exist for this key. Never
   * throws; a network failure or an error answer is `{ error }`.
   */
  checkModels?(models: readonly string[], apiKey: string, signal: AbortSignal): Promise<ModelPresence>;
  /** Best-effort cancel of an upstream job, where the provider supports it. */
  cancel?(request: { upstreamId: string; apiKey: string | null; signal: AbortSignal }): Promise<void>;
}
