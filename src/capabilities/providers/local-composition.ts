import { createHash } from 'node:crypto';
import type { ProviderRequest } from './provider.js';

/** A small deterministic random stream seeded from the request. */
export function seededRandom(seed: Buffer): () => number {
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

/**
 * The hash every choice of a render comes from: the request's model, mode, prompt, shape and
 * position, and its seed when it has one (a request without a seed renders as it always did).
 */
export function seedOf(request: ProviderRequest): Buffer {
  const parts: unknown[] = [
    request.upstreamModel,
    request.mode,
    request.prompt,
    request.aspect,
    request.imageSize,
    request.index,
  ];
  if (request.seed !== undefined) parts.push(request.seed);
  return createHash('sha256').update(JSON.stringify(parts)).digest();
}

const hsl = (h: number, s: number, l: number) => `hsl(${Math.round(h)},${Math.round(s)}%,${Math.round(l)}%)`;

/** The background gradient's ends (hue°, saturation %, lightness %): top left, then bottom right. */
export const gradientStops = (hue: number): [number, number, number][] => [
  [hue, 60, 22],
  [hue + 90, 60, 70],
];

/** CSS's hsl() as sRGB channels 0-255 (unrounded). */
export function hslToRgb(hue: number, saturation: number, lightness: number): [number, number, number] {
  const s = saturation / 100;
  const l = lightness / 100;
  const f = (n: number) => {
    const k = (n + hue / 30) % 12;
    return 255 * (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1)));
  };
  return [f(0), f(8), f(4)];
}

/** One shape of a composition: a circle, or a rounded bar `2r` long and `r/2` thick turned by `angle`°. */
export interface CompositionShape {
  kind: 'circle' | 'bar';
  cx: number;
  cy: number;
  r: number;
  hue: number;
  opacity: number;
  angle: number;
}

/**
 * The picture a request gets, as data: a diagonal gradient (`gradientStops`) under 6-15 semi-transparent shapes, every choice from the
 * request's hash.
 */
export function compositionOf(request: ProviderRequest): { hue: number; shapes: CompositionShape[] } {
  const { width, height } = request;
  const random = seededRandom(seedOf(request));
  const hue = random() * 360;
  const shapes: CompositionShape[] = [];
  const count = 6 + Math.floor(random() * 10);
  for (let i = 0; i < count; i++) {
    const h = (hue + 60 + random() * 240) % 360;
    const cx = random() * width;
    const cy = random() * height;
    const r = (0.05 + random() * 0.3) * Math.min(width, height);
    if (random() < 0.6) {
      shapes.push({ kind: 'circle', cx, cy, r, hue: h, opacity: 0.35 + random() * 0.5, angle: 0 });
    } else {
      const angle = Math.round(random() * 180);
      shapes.push({ kind: 'bar', cx, cy, r, hue: h, opacity: 0.3 + random() * 0.5, angle });
    }
  }
  return { hue, shapes };
}

function shapeSvg({ kind, cx, cy, r, hue, opacity, angle }: CompositionShape): string {
  if (kind === 'circle') {
    return `<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="${r.toFixed(1)}" fill="${hsl(hue, 70, 55)}" fill-opacity="${opacity.toFixed(2)}"/>`;
  }
  return `<rect x="${(cx - r).toFixed(1)}" y="${(cy - r / 4).toFixed(1)}" width="${(2 * r).toFixed(1)}" height="${(r / 2).toFixed(1)}" rx="${(r / 8).toFixed(1)}" fill="${hsl(hue, 65, 60)}" fill-opacity="${opacity.toFixed(2)}" transform="rotate(${angle} ${cx.toFixed(1)} ${cy.toFixed(1)})"/>`;
}

/**
 * An abstract composition (gradient, circles, bands) whose every choice comes from the prompt;
 * below full opacity, the shapes alone (no gradient), to lay over another picture; `keep` picks
 * the shapes drawn (all by default).
 */
export function compositionSvg(
  request: ProviderRequest,
  opacity = 1,
  keep: (shape: CompositionShape) => boolean = () => true,
): string {
  const { width, height } = request;
  const { hue, shapes } = compositionOf(request);
  const background =
    opacity >= 1
      ? `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">${gradientStops(hue)
          .map(([h, s, l], i) => `<stop offset="${i}" stop-color="${hsl(h, s, l)}"/>`)
          .join('')}</linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/>`
      : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${background}<g opacity="${opacity}">${shapes.filter(keep).map(shapeSvg).join('')}</g></svg>`;
}
