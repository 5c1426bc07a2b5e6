import { sharp } from '../../infra/images/sharp.js';
import { decodeReference } from './local-actions.js';
import { gradientStops, hslToRgb, seededRandom } from './local-composition.js';
import type { ProviderRequest, ReferenceImage } from './provider.js';

/**
 * Remove background on the offline renderer: the background is modelled from the image's border,
 * then every pixel near the model turns transparent and the rest stays opaque, a soft ramp between.
 *
 * The model is a plane per channel over the image's normalised coordinates (u, v):
 * c = a + b·u + d·v. The renderer's own background, a linear gradient along the diagonal, is exactly
 * such a plane (to within rounding), and so is the colour of a photo's border region (a wall, a sky,
 * a backdrop). Shapes often cover much of the border, each a plane of its own (a semi-transparent
 * fill over the gradient), so planes are found by consensus (RANSAC: of many planes through three
 * border samples, the one most border samples lie on, refitted by least squares on them); of those,
 * the one that is the renderer's gradient, else the one with the most support.
 */

/** A border sample: its coordinates and colour. */
interface Sample {
  u: number;
  v: number;
  rgb: [number, number, number];
}

/** Per channel, the plane's [a, b, d]. */
type Plane = [number, number, number][];

/** Pixels of a band along the border, about 4,000 of them, the transparent ones left out. */
function borderSamples(rgba: Buffer, width: number, height: number): Sample[] {
  const band = Math.max(1, Math.round(Math.min(width, height) * 0.02));
  const step = Math.max(1, Math.floor((2 * (width + height) * band) / 4000));
  const samples: Sample[] = [];
  let n = 0;
  for (let y = 0; y < height; y++) {
    const rowInBand = y < band || y >= height - band;
    for (let x = 0; x < width; x++) {
      if (!rowInBand && x >= band && x < width - band) continue;
      const at = (y * width + x) * 4;
      if (n++ % step !== 0 || rgba[at + 3] === 0) continue;
      samples.push({
        u: width > 1 ? x / (width - 1) : 0,
        v: height > 1 ? y / (height - 1) : 0,
        rgb: [rgba[at] ?? 0, rgba[at + 1] ?? 0, rgba[at + 2] ?? 0],
      });
    }
  }
  return samples;
}

/** Solves the 3×3 system `m`·k = `rhs` (Cramer's rule); undefined when it is (nearly) singular. */
function solve3(m: number[][], rhs: number[]): [number, number, number] | undefined {
  const det = (a: number[][]) =>
    (a[0]?.[0] ?? 0) * ((a[1]?.[1] ?? 0) * (a[2]?.[2] ?? 0) - (a[1]?.[2] ?? 0) * (a[2]?.[1] ?? 0)) -
    (a[0]?.[1] ?? 0) * ((a[1]?.[0] ?? 0) * (a[2]?.[2] ?? 0) - (a[1]?.[2] ?? 0) * (a[2]?.[0] ?? 0)) +
    (a[0]?.[2] ?? 0) * ((a[1]?.[0] ?? 0) * (a[2]?.[1] ?? 0) - (a[1]?.[1] ?? 0) * (a[2]?.[0] ?? 0));
  const d = det(m);
  if (Math.abs(d) < 1e-9) return undefined;
  const column = (j: number) =>
    det(m.map((row, i) => row.map((value, c) => (c === j ? (rhs[i] ?? 0) : value))));
  return [column(0) / d, column(1) / d, column(2) / d];
}

/** The least-squares plane through `samples` (exact through three). */
function fitPlane(samples: Sample[]): Plane | undefined {
  // The normal equations: m = Σ t·tᵀ and, per channel, Σ t·value, with t = (1, u, v).
  const m = [0, 1, 2].map(() => [0, 0, 0]);
  const rhs = [0, 1, 2].map(() => [0, 0, 0]);
  for (const { u, v, rgb } of samples) {
    const t = [1, u, v];
    t.forEach((ti, i) => {
      t.forEach((tj, j) => {
        (m[i] as number[])[j] = ((m[i] as number[])[j] ?? 0) + ti * tj;
      });
      rgb.forEach((value, c) => {
        (rhs[c] as number[])[i] = ((rhs[c] as number[])[i] ?? 0) + ti * value;
      });
    });
  }
  const plane = rhs.map((r) => solve3(m, r));
  return plane.every((k) => k !== undefined) ? (plane as Plane) : undefined;
}

/** The largest channel difference between a colour and the plane at (u, v). */
function residual(plane: Plane, u: number, v: number, r: number, g: number, b: number): number {
  const [pr = [0, 0, 0], pg = [0, 0, 0], pb = [0, 0, 0]] = plane;
  return Math.max(
    Math.abs(r - (pr[0] + pr[1] * u + pr[2] * v)),
    Math.abs(g - (pg[0] + pg[1] * u + pg[2] * v)),
    Math.abs(b - (pb[0] + pb[1] * u + pb[2] * v)),
  );
}

const near = (plane: Plane, tolerance: number) => (s: Sample) =>
  residual(plane, s.u, s.v, ...s.rgb) <= tolerance;

/** The plane most samples lie on within `tolerance`, over a fixed number of seeded random trials. */
function consensusPlane(samples: Sample[], tolerance: number): { plane?: Plane; inliers: Sample[] } {
  const random = seededRandom(Buffer.alloc(8));
  let best: { plane?: Plane; inliers: Sample[] } = { inliers: [] };
  for (let trial = 0; trial < 300 && samples.length >= 3; trial++) {
    const pick = () => samples[Math.floor(random() * samples.length)] as Sample;
    const plane = fitPlane([pick(), pick(), pick()]);
    if (!plane) continue;
    const inliers = samples.filter(near(plane, tolerance));
    if (inliers.length > best.inliers.length) best = { plane, inliers };
  }
  return best;
}

/** The plane refitted twice on the samples within `tolerance` of it, and the noise about it (their median residual). */
function refine(samples: Sample[], plane: Plane, tolerance: number): { plane: Plane; noise: number } {
  let inliers = samples.filter(near(plane, tolerance));
  for (let round = 0; round < 2; round++) {
    plane = fitPlane(inliers) ?? plane;
    inliers = samples.filter(near(plane, tolerance));
  }
  const residuals = inliers.map((s) => residual(plane, s.u, s.v, ...s.rgb)).sort((a, b) => a - b);
  return { plane, noise: residuals[Math.floor(residuals.length / 2)] ?? 0 };
}

const planeAt = (plane: Plane, u: number, v: number) => plane.map(([a, b, d]) => a + b * u + d * v);

/**
 * Whether a plane is the renderer's own background: the hue of its top-left colour gives the
 * gradient's two ends (`gradientStops`), and the plane meets both within a few levels. A shape over
 * the gradient is a plane too, but a dimmer, flatter one that misses them.
 */
function isRendererGradient(plane: Plane): boolean {
  const start = planeAt(plane, 0, 0);
  const [r = 0, g = 0, b = 0] = start.map((c) => c / 255);
  const max = Math.max(r, g, b);
  const chroma = max - Math.min(r, g, b);
  if (chroma === 0) return false;
  const sector = max === r ? (g - b) / chroma : max === g ? (b - r) / chroma + 2 : (r - g) / chroma + 4;
  const ends = gradientStops((sector * 60 + 360) % 360).map(([h, sat, l]) => hslToRgb(h, sat, l));
  const off = (colour: number[], expected: number[]) =>
    Math.max(...colour.map((c, i) => Math.abs(c - (expected[i] ?? 0))));
  return off(start, ends[0] ?? []) <= 5 && off(planeAt(plane, 1, 1), ends[1] ?? []) <= 5;
}

/**
 * The renderer's gradient among the planes the border holds: the largest consensus first, then the
 * next among the samples left, up to four, until one is the gradient (undefined: none is).
 */
function rendererGradient(samples: Sample[]): Plane | undefined {
  let rest = samples;
  for (let k = 0; k < 4 && rest.length >= Math.max(3, samples.length / 20); k++) {
    const { plane, inliers } = consensusPlane(rest, 4);
    if (!plane) return undefined;
    const fitted = fitPlane(inliers) ?? plane;
    if (isRendererGradient(fitted)) return fitted;
    rest = rest.filter((s) => !near(plane, 4)(s));
  }
  return undefined;
}

/**
 * The background plane and the noise about it. The renderer's own gradient when the border shows
 * it; else the plane most of the border lies on, at the tightest tolerance where some plane holds a
 * sixth of it (a photo's border needs a looser one than a smooth gradient).
 */
export function fitBackground(rgba: Buffer, width: number, height: number): { plane?: Plane; noise: number } {
  const samples = borderSamples(rgba, width, height);
  const gradient = rendererGradient(samples);
  if (gradient) return refine(samples, gradient, 4);
  for (const tolerance of [4, 8, 16, 32, 64]) {
    const { plane, inliers } = consensusPlane(samples, tolerance);
    if (plane && (inliers.length >= samples.length / 6 || tolerance === 64))
      return refine(samples, plane, tolerance);
  }
  return { noise: 0 };
}

/**
 * The picked image, at `width` × `height`, as a PNG with alpha: transparent where it matches the
 * background plane, opaque where it differs by more than the ramp (its own alpha kept as a ceiling).
 */
export async function removeBackground(request: ProviderRequest, picked: ReferenceImage): Promise<Buffer> {
  const { width, height } = request;
  const rgba = await decodeReference(0, () =>
    sharp(picked.bytes, { animated: false })
      .resize(width, height, { fit: 'cover' })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer(),
  );
  const { plane, noise } = fitBackground(rgba, width, height);
  if (plane) {
    // Within `low` of the plane: background; `ramp` further: fully the shape's.
    const low = Math.max(8, 3 * noise + 4);
    const ramp = 24;
    for (let y = 0; y < height; y++) {
      const v = height > 1 ? y / (height - 1) : 0;
      for (let x = 0; x < width; x++) {
        const at = (y * width + x) * 4;
        const d = residual(
          plane,
          width > 1 ? x / (width - 1) : 0,
          v,
          rgba[at] ?? 0,
          rgba[at + 1] ?? 0,
          rgba[at + 2] ?? 0,
        );
        rgba[at + 3] = Math.round((rgba[at + 3] ?? 0) * Math.min(1, Math.max(0, (d - low) / ramp)));
      }
    }
  }
  return sharp(rgba, { raw: { width, height, channels: 4 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
}
