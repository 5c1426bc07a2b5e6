import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import sharp, { type OverlayOptions } from 'sharp';
import { createFairConcurrencyLimit } from '../../base/concurrency/concurrency-limit.js';
import type { Clock } from '../../base/runtime/clock.js';
import { keepUnmasked } from './local-mask.js';
import type { ImageProvider, PollOutcome, ProviderRequest, SubmitOutcome } from './provider.js';

export const FAIL_MARKER = '[[fail]]';
export const UPSTREAM_ERROR_MARKER = '[[upstream_error]]';

/** A small deterministic random stream seeded from the request. */
function seededRandom(seed: Buffer): () => number {
  let state = seed.readUInt32LE(0) ^ seed.readUInt32LE(4);
  let counter = 0;
  return () => {
    // mulberry32
    state = (state + 0x6d2b79f5 + counter++) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seedOf(request: ProviderRequest): Buffer {
  return createHash('sha256')
    .update(
      JSON.stringify([
        request.upstreamModel,
        request.mode,
        request.prompt,
        request.aspect,
        request.imageSize,
        request.index,
      ]),
    )
    .digest();
}

const hsl = (h: number, s: number, l: number) => `hsl(${Math.round(h)},${Math.round(s)}%,${Math.round(l)}%)`;

/** An abstract composition (gradient, circles, bands) whose every choice comes from the prompt. */
function compositionSvg(request: ProviderRequest, opacity = 1): string {
  const { width, height } = request;
  const random = seededRandom(seedOf(request));
  const hue = random() * 360;
  const shapes: string[] = [];
  const count = 6 + Math.floor(random() * 10);
  for (let i = 0; i < count; i++) {
    const h = (hue + 60 + random() * 240) % 360;
    const cx = random() * width;
    const cy = random() * height;
    const r = (0.05 + random() * 0.3) * Math.min(width, height);
    if (random() < 0.6) {
      shapes.push(
        `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="${r.toFixed(1)}" fill="${hsl(h, 70, 55)}" fill-opacity="${(0.35 + random() * 0.5).toFixed(2)}"/>`,
      );
    } else {
      const angle = Math.round(random() * 180);
      shapes.push(
        `<rect x="${(cx - r).toFixed(1)}" y="${(cy - r / 4).toFixed(1)}" width="${(2 * r).toFixed(1)}" height="${(r / 2).toFixed(1)}" rx="${(r / 8).toFixed(1)}" fill="${hsl(h, 65, 60)}" fill-opacity="${(0.3 + random() * 0.5).toFixed(2)}" transform="rotate(${angle} ${cx.toFixed(1)} ${cy.toFixed(1)})"/>`,
      );
    }
  }
  const background =
    opacity >= 1
      ? `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${hsl(hue, 60, 22)}"/><stop offset="1" stop-color="${hsl(hue + 90, 60, 70)}"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/>`
      : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${background}<g opacity="${opacity}">${shapes.join('')}</g></svg>`;
}

/** A reference image the renderer could not decode: a property of the bytes, so never worth a retry. */
export class UndecodableReferenceError extends Error {
  constructor(readonly position: number) {
    super(`Reference image ${position} could not be decoded (corrupt or truncated image data)`);
    this.name = 'UndecodableReferenceError';
  }
}

/** Runs one reference's decode, turning a decoder error into UndecodableReferenceError (1-based position). */
async function decodeReference(index: number, decode: () => Promise<Buffer>): Promise<Buffer> {
  try {
    return await decode();
  } catch {
    throw new UndecodableReferenceError(index + 1);
  }
}

/**
 * Renders the image a request asks for, at exactly request.width × request.height (a masked edit:
 * at the reference's size), as PNG.
 */
export async function renderLocalImage(request: ProviderRequest): Promise<Buffer> {
  const masked = request.references[0];
  if (request.mask && request.mode === 'edit' && masked) {
    // A masked edit keeps the image's size and changes only where the mask is transparent.
    const { mask, ...unmasked } = request;
    const render = await renderLocalImage({ ...unmasked, width: masked.width, height: masked.height });
    return keepUnmasked(masked, render, mask);
  }
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
