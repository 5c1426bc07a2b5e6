import { sharp } from '../../infra/images/sharp.js';
import type { ReferenceImage } from './provider.js';

/** The RGBA pixels of an image at `width` × `height` (stretched to it when its size differs). */
export async function rgbaOf(bytes: Buffer, width: number, height: number): Promise<Buffer> {
  return sharp(bytes, { animated: false })
    .resize(width, height, { fit: 'fill' })
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer();
}

/**
 * An edit held to its mask, as OpenAI's edits are: `render` (the edit, at the reference's size)
 * where the mask is fully transparent, the reference itself where the mask is opaque (its pixels
 * byte for byte), and the two mixed by the mask's alpha in between. A PNG at the reference's size;
 * without alpha when the reference has none.
 */
export async function keepUnmasked(
  reference: ReferenceImage,
  render: Buffer,
  mask: ReferenceImage,
): Promise<Buffer> {
  const { width, height } = reference;
  const [kept, edited, guide] = await Promise.all([
    rgbaOf(reference.bytes, width, height),
    rgbaOf(render, width, height),
    rgbaOf(mask.bytes, width, height),
  ]);
  const out = Buffer.alloc(kept.length);
  for (let i = 0; i < out.length; i += 4) {
    const keep = guide[i + 3] ?? 0;
    for (let c = i; c < i + 4; c++) {
      out[c] =
        keep === 255
          ? (kept[c] ?? 0)
          : Math.round(((kept[c] ?? 0) * keep + (edited[c] ?? 0) * (255 - keep)) / 255);
    }
  }
  const { hasAlpha } = await sharp(reference.bytes).metadata();
  const image = sharp(out, { raw: { width, height, channels: 4 } });
  return (hasAlpha ? image : image.removeAlpha()).png({ compressionLevel: 6 }).toBuffer();
}
