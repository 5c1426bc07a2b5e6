import { availableParallelism } from 'node:os';
import type { OverlayOptions } from 'sharp';
import { createFairConcurrencyLimit } from '../../base/concurrency/concurrency-limit.js';
import type { Clock } from '../../base/runtime/clock.js';
import { sharp } from '../../infra/images/sharp.js';
import {
  decodeReference,
  expandFill,
  UndecodableReferenceError,
  upscaleImage,
  varyImage,
} from './local-actions.js';
import { compositionSvg, seededRandom, seedOf } from './local-composition.js';
import { removeBackground } from './local-cutout.js';
import { keepUnmasked } from './local-mask.js';
import type { ImageProvider, PollOutcome, ProviderRequest, SubmitOutcome } from './provider.js';

export { UndecodableReferenceError };

export const FAIL_MARKER = '[[fail]]';
export const UPSTREAM_ERROR_MARKER = '[[upstream_error]]';

/**
 * Renders the image a request asks for, at exactly request.width × request.height (a masked edit:
 * at the reference's size), as PNG. An action (issue 45) works on the first reference: upscale
 * resamples it, vary re-renders it, remove_background cuts its shapes out onto transparency, and
 * expand (a masked edit of the padded canvas) fills the canvas's border.
 */
export async function renderLocalImage(request: ProviderRequest): Promise<Buffer> {
  const picked = request.references[0];
  const action = request.action;
  if (picked && action?.name === 'upscale') return upscaleImage(request, picked);
  if (picked && action?.name === 'remove_background') return removeBackground(request, picked);
  if (picked && action?.name === 'expand') {
    // The canvas's own transparent border is the mask when none came with it.
    const mask = request.mask ?? picked;
    return keepUnmasked(picked, await expandFill(request, picked, mask), mask);
  }
  if (request.mask && request.mode === 'edit' && picked) {
    // A masked edit keeps the image's size and changes only where the mask is transparent.
    const { mask, ...unmasked } = request;
    const render = await renderLocalImage({ ...unmasked, width: picked.width, height: picked.height });
    return keepUnmasked(picked, render, mask);
  }
  if (picked && action?.name === 'vary') return varyImage(request, picked, action.strength);
  const { width, height } = request;
  const overlay = Buffer.from(compositionSvg(request, request.mode === 'text' ? 1 : 0.45));
  if (request.mode === 'text' || request.references.length === 0) {
    return sharp(overlay, { limitInputPixels: false })
      .resize(width, height)
      .png({ compressionLevel: 6 })
      .toBuffer();
  }
  // edit: the reference, reframed to the target size and re-toned by the prompt;
  // fusion: every reference blended over the first.
  const random = seededRandom(seedOf(request));
  const [first, ...rest] = request.references;
  if (!first) throw new Error('edit needs a reference image');
  const base = await decodeReference(0, () =>
    sharp(first.bytes, { animated: false })
      .resize(width, height, { fit: 'cover' })
      .modulate({ hue: Math.round(random() * 360), saturation: 0.8 + random() * 0.6 })
      .toBuffer(),
  );
  const layers: OverlayOptions[] = [];
  for (const [i, reference] of rest.entries()) {
    const layer = await decodeReference(i + 1, () =>
      sharp(reference.bytes, { animated: false })
        .resize(width, height, { fit: 'cover' })
        .ensureAlpha(0.5)
        .png()
        .toBuffer(),
    );
    layers.push({ input: layer, blend: 'over' });
  }
  layers.push({ input: overlay, blend: 'over' });
  return sharp(base).composite(layers).png({ compressionLevel: 6 }).toBuffer();
}

/**
 * Partial frame `index` of `count` (OpenAI's `partial_images`): the image rendered at a fraction of
 * its size — 1/8 of each side for the last frame, half that for each earlier one — and scaled back
 * up by nearest neighbour: a mosaic of the final composition, progressively finer, that PNG keeps
 * small (45-65 KB at 1024x1024, against 250-380 KB for a smooth upscale).
 */
export async function renderLocalPartial(request: ProviderRequest, index: number, count: number) {
  const divisor = 2 ** (count - index + 2);
  const small = {
    ...request,
    width: Math.max(4, Math.round(request.width / divisor)),
    height: Math.max(4, Math.round(request.height / divisor)),
  };
  return sharp(await renderLocalImage(small))
    .resize(request.width, request.height, { kernel: 'nearest' })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/** The partial frame due at `fraction` of the render's time (frame k at (k+1)/(count+1)), if any. */
function duePartialFrame(request: ProviderRequest, fraction: number): number | undefined {
  const count = Math.min(3, request.partialImages ?? 0);
  const made = request.partialFrames ?? 0;
  const due = Math.min(count, Math.floor(fraction * (count + 1)));
  return due > made ? made : undefined;
}

/**
 * The offline `local` renderer: a real, deterministic renderer with an upstream's pace.
 * Submit answers at once with an upstream id that carries the submit time, so progress
 * survives a restart; polls report rising progress until `latencyMs` has passed, then render.
 */
export function createLocalProvider({
  clock,
  latencyMs,
  renderSlots = Math.max(1, availableParallelism() - 1),
}: {
  clock: Clock;
  latencyMs: number;
  /** Renders at once; by default one per core but one. */
  renderSlots?: number;
}): ImageProvider {
  // Rendering is CPU work in this process: leave a core to the API's event loop (polls keep their
  // latency while hundreds of renders are due at once). Accounts take turns for the slots, so one
  // account's backlog does not hold up another account's image.
  const renders = createFairConcurrencyLimit(renderSlots);
  /**
   * A render in its account's turn; undefined when the step was aborted while it waited (a worker
   * stopping, a lease lost): nothing was rendered, the job is simply still pending.
   */
  const inTurn = async (request: ProviderRequest, render: () => Promise<Buffer>) => {
    try {
      return await renders.run(request.fairnessKey ?? '', render, request.signal);
    } catch (error) {
      if (request.signal.aborted && error === request.signal.reason) return undefined;
      throw error;
    }
  };
  return {
    name: 'local',
    requiresKey: false,
    submitsInline: true,
    pollIntervalMs: Math.min(500, Math.max(50, Math.floor(latencyMs / 10))),
    expectedDurationMs: () => latencyMs,

    async submit(request): Promise<SubmitOutcome> {
      if (request.prompt.includes(UPSTREAM_ERROR_MARKER)) {
        return {
          kind: 'failed',
          retryable: false,
          message: 'local renderer: simulated upstream error (the prompt contains [[upstream_error]])',
        };
      }
      if (request.mode !== 'text' && request.references.length === 0) {
        return {
          kind: 'failed',
          retryable: false,
          message: 'local renderer: this mode needs a reference image',
        };
      }
      return { kind: 'pending', upstreamId: `local-${clock.now().toString(36)}`, progress: 0 };
    },

    async poll(request): Promise<PollOutcome> {
      const startedAt = Number.parseInt(request.upstreamId.replace(/^local-/, ''), 36);
      if (!Number.isFinite(startedAt)) {
        return {
          kind: 'failed',
          retryable: false,
          message: `local renderer: unknown job ${request.upstreamId}`,
        };
      }
      const elapsed = clock.now() - startedAt;
      if (request.prompt.includes(FAIL_MARKER) && elapsed >= latencyMs / 2) {
        return {
          kind: 'failed',
          retryable: false,
          message: 'Generation failed: the local renderer refused the prompt (test marker [[fail]])',
        };
      }
      if (elapsed < latencyMs) {
        // The first tenth of the time is spent "in the upstream queue".
        if (elapsed < latencyMs / 10) return { kind: 'pending', status: 'queued', progress: 0 };
        const progress = Math.min(95, Math.max(1, Math.floor((elapsed / latencyMs) * 100)));
        // A partial frame is rendered only when one was asked for and its time has come.
        const frame = duePartialFrame(request, elapsed / latencyMs);
        if (frame === undefined) return { kind: 'pending', status: 'in_progress', progress };
        const count = Math.min(3, request.partialImages ?? 0);
        try {
          const bytes = await inTurn(request, () => renderLocalPartial(request, frame, count));
          if (bytes === undefined) return { kind: 'pending', status: 'in_progress', progress };
          return {
            kind: 'pending',
            status: 'in_progress',
            progress,
            partial: { bytes, contentType: 'image/png' },
          };
        } catch (error) {
          if (!(error instanceof UndecodableReferenceError)) throw error;
          return { kind: 'failed', retryable: false, cause: 'invalid_request', message: error.message };
        }
      }
      try {
        const bytes = await inTurn(request, () => renderLocalImage(request));
        if (bytes === undefined) return { kind: 'pending', status: 'in_progress', progress: 95 };
        return { kind: 'done', image: { bytes, contentType: 'image/png' } };
      } catch (error) {
        if (!(error instanceof UndecodableReferenceError)) throw error;
        return { kind: 'failed', retryable: false, cause: 'invalid_request', message: error.message };
      }
    },
  };
}
