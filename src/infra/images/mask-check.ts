import { sharp } from './sharp.js';

/**
 * Why `mask` cannot mask an image of `image`'s size, by OpenAI's rules for an edit's mask (a PNG
 * with an alpha channel, the image's width and height), or undefined when it can. Reads the
 * header only; the bytes were checked when they were stored.
 */
export async function maskProblem(
  mask: Buffer,
  image: { width: number; height: number },
): Promise<string | undefined> {
  const meta = await sharp(mask)
    .metadata()
    .catch(() => undefined);
  if (meta?.format !== 'png') return 'must be a PNG image';
  if (!meta.hasAlpha) return 'must have an alpha channel: its fully transparent pixels say where to edit';
  if (meta.width !== image.width || meta.height !== image.height) {
    return `must be the size of the image (${image.width}x${image.height}); it is ${meta.width}x${meta.height}`;
  }
  return undefined;
}
