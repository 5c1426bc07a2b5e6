/** Inline reference images fitted to an upstream: re-encoded to a type it takes, downscaled under its request limit. */
import { sharp } from '../../infra/images/sharp.js';
import type { ReferenceImage } from './provider.js';

function formatBytes(n: number): string {
  return n >= 1_000_000 ? `${Math.round(n / 100_000) / 10} MB` : `${Math.ceil(n / 1000)} kB`;
}

/** Length of the base64 text for `n` bytes. */
export function base64Length(n: number): number {
  return 4 * Math.ceil(n / 3);
}

export interface EncodedImage {
  bytes: Buffer;
  contentType: string;
  width: number;
  height: number;
}

/** The failure text for a reference no decoder can read (1-based position, no decoder internals). */
function undecodableReference(index: number): string {
  return `reference image ${index + 1} could not be decoded (corrupt or truncated image data)`;
}

/** One smaller encoding of an image: JPEG when opaque, WebP when it has transparency. Throws on undecodable bytes. */
async function reencode(
  source: Buffer,
  width: number,
  height: number,
  acceptedTypes: readonly string[],
): Promise<{ bytes: Buffer; contentType: string } | { error: string }> {
  const { hasAlpha } = await sharp(source, { animated: false }).metadata();
  const contentType = hasAlpha ? 'image/webp' : 'image/jpeg';
  if (!acceptedTypes.includes(contentType)) {
    return { error: `references are too large for one request and cannot be re-encoded as ${contentType}` };
  }
  const pipeline = sharp(source, { animated: false }).resize(width, height, { fit: 'fill' });
  const bytes = hasAlpha
    ? await pipeline.webp({ quality: 90 }).toBuffer()
    : await pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
  return { bytes, contentType };
}

/**
 * Re-encodes references whose type the upstream does not take (GIF, BMP…) as PNG, then, while
 * their base64 total exceeds `budgetBytes`, shrinks the largest one. Returns a message instead
 * when even small versions do not fit.
 */
export async function fitReferences(
  references: readonly ReferenceImage[],
  {
    acceptedTypes,
    budgetBytes,
    minSide = 256,
  }: { acceptedTypes: readonly string[]; budgetBytes: number; minSide?: number },
): Promise<EncodedImage[] | { error: string }> {
  const images: EncodedImage[] = [];
  for (const [i, reference] of references.entries()) {
    if (acceptedTypes.includes(reference.contentType)) {
      images.push({ ...reference });
      continue;
    }
    try {
      const bytes = await sharp(reference.bytes, { animated: false }).png().toBuffer();
      images.push({ bytes, contentType: 'image/png', width: reference.width, height: reference.height });
    } catch {
      return { error: undecodableReference(i) };
    }
  }
  const total = () => images.reduce((sum, image) => sum + base64Length(image.bytes.length), 0);
  // Images already shrunk to `minSide` are left alone; the loop ends when nothing can shrink.
  const atFloor = new Set<number>();
  for (let round = 0; round < 8 * images.length && total() > budgetBytes; round++) {
    let largest = -1;
    for (let i = 0; i < images.length; i++) {
      if (atFloor.has(i)) continue;
      if (largest < 0 || (images[i]?.bytes.length ?? 0) > (images[largest]?.bytes.length ?? 0)) largest = i;
    }
    const image = images[largest];
    if (!image) break;
    const others = total() - base64Length(image.bytes.length);
    const share = Math.max(budgetBytes - others, budgetBytes / images.length);
    const wanted = Math.min(0.9, Math.sqrt(share / base64Length(image.bytes.length)) * 0.9);
    const floor = Math.min(1, minSide / Math.min(image.width, image.height));
    const scale = Math.max(wanted, floor);
    if (scale >= 1 || scale === floor) atFloor.add(largest);
    const width = Math.max(1, Math.round(image.width * Math.min(scale, 1)));
    const height = Math.max(1, Math.round(image.height * Math.min(scale, 1)));
    // JPEG for opaque images, WebP where transparency must survive: both far smaller than PNG.
    const shrunk = await reencode(image.bytes, width, height, acceptedTypes).catch(() => ({
      error: undecodableReference(largest),
    }));
    if ('error' in shrunk) return shrunk;
    const { bytes, contentType } = shrunk;
    if (bytes.length < image.bytes.length) images[largest] = { bytes, contentType, width, height };
    else atFloor.add(largest);
  }
  if (total() > budgetBytes) {
    return {
      error: `the reference images do not fit in one request (${formatBytes(total())} of base64 after downscaling; limit ${formatBytes(budgetBytes)})`,
    };
  }
  return images;
}
