import { InvalidInput } from '../../base/domain/errors.js';
import type { ImageQuality } from '../../base/domain/image-qualities.js';
import { IMAGE_SIZES, type ImageSize, pixelSize } from '../../base/domain/image-sizes.js';
import type { CatalogEntry } from '../../capabilities/catalog/index.js';

/** Largest side accepted in `size` (OpenAI's own largest is 3840; 4K at 21:9 is about 6,300). */
const MAX_SIDE = 16_384;
/** How far (as a ratio of ratios) the nearest aspect may be from the requested one: 10 %. */
const ASPECT_TOLERANCE = Math.log(1.1);

const ratioOf = (aspect: string): number => {
  const [w, h] = aspect.split(':').map(Number);
  return (w ?? 1) / (h ?? 1);
};

const preferred = <T extends string>(list: readonly T[], wanted: T): T =>
  list.includes(wanted) ? wanted : (list[0] ?? wanted);

/** What the model can make, for a refusal's message: "1024x1024 (1:1, 1K), …". */
export function sizesOffered(model: CatalogEntry): string[] {
  return model.aspects.flatMap((aspect) =>
    model.sizes.map((size) => {
      const { width, height } = pixelSize(aspect, size);
      return `${width}x${height}`;
    }),
  );
}

/**
 * OpenAI's `size` onto the catalog: `auto` (or none) is 1:1 at 1K where the model offers them (the
 * nearest to OpenAI's default 1024x1024); `WxH` takes the model's aspect nearest in ratio (within
 * 10 %), then the size class nearest in megapixels. A class smaller than the model's smallest is
 * raised to it (a bigger image is still the image asked for); a ratio the model lacks, a class
 * between two it offers that it lacks, or more than twice the pixels of its largest class (nearer
 * the class above it) is a 400 naming `size`.
 */
export function mapSize(
  model: CatalogEntry,
  size: string | null | undefined,
): { aspect: string; imageSize: ImageSize } {
  const trimmed = size?.trim() ?? '';
  if (trimmed === '' || trimmed === 'auto') {
    return { aspect: preferred(model.aspects, '1:1'), imageSize: preferred(model.sizes, '1K') };
  }
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(trimmed);
  const width = Number(match?.[1]);
  const height = Number(match?.[2]);
  if (!match || width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) {
    throw new InvalidInput(`size must be WIDTHxHEIGHT (e.g. 1024x1024) or auto; got "${trimmed}"`, 'size');
  }
  const refuse = (why: string) =>
    new InvalidInput(
      `size ${trimmed} is not supported by model ${model.id} (${why}); accepted: auto, ${sizesOffered(model).join(', ')}`,
      'size',
    );

  const wanted = Math.log(width / height);
  const distance = (aspect: string) => Math.abs(Math.log(ratioOf(aspect)) - wanted);
  const aspect = [...model.aspects].sort((a, b) => distance(a) - distance(b))[0];
  if (aspect === undefined || distance(aspect) > ASPECT_TOLERANCE) throw refuse('no such aspect ratio');

  const pixels = width * height;
  const area = (imageSize: ImageSize) => {
    const side = pixelSize(aspect, imageSize);
    return side.width * side.height;
  };
  const rank = (imageSize: ImageSize) => IMAGE_SIZES.indexOf(imageSize);
  // Classes are 4x apart in pixels: beyond twice the largest, the nearest class is one above it.
  const largest = [...model.sizes].sort((a, b) => rank(b) - rank(a))[0];
  if (largest !== undefined && pixels > 2 * area(largest)) {
    throw refuse(`larger than its largest size class (${largest})`);
  }
  const classDistance = (imageSize: ImageSize) => Math.abs(Math.log(area(imageSize) / pixels));
  const nearest = [...IMAGE_SIZES].sort((a, b) => classDistance(a) - classDistance(b))[0] ?? '1K';
  if (model.sizes.includes(nearest)) return { aspect, imageSize: nearest };
  const smallest = [...model.sizes].sort((a, b) => rank(a) - rank(b))[0];
  if (smallest !== undefined && rank(nearest) < rank(smallest)) return { aspect, imageSize: smallest };
  throw refuse(`it needs ${nearest}`);
}

/** OpenAI's `n` against the model's cap: default 1, else an integer from 1 to `maxCount`. */
export function mapCount(model: CatalogEntry, n: number | null | undefined): number {
  if (n === undefined || n === null) return 1;
  if (!Number.isInteger(n) || n < 1 || n > model.maxCount) {
    throw new InvalidInput(`n must be between 1 and ${model.maxCount} for model ${model.id}`, 'n');
  }
  return n;
}

/**
 * An edit's `mask` against the model: only one image (OpenAI applies it to the first; Atelier's
 * fusion takes none) on a model whose catalog entry lists masks, else a 400 naming `mask`.
 */
export function checkMask(model: CatalogEntry, images: number): void {
  if (!model.masks) {
    throw new InvalidInput(
      `mask: model ${model.id} does not take a mask (GET /v1/models lists masks: true on those that do); send the image alone and describe the change in prompt`,
      'mask',
    );
  }
  if (images !== 1) throw new InvalidInput('mask: a mask goes with exactly one image', 'mask');
}

/** The v1 field a core refusal names, as the OpenAI request calls it (what `param` carries). */
export function openAiParamOf(field: string | undefined): string | null {
  if (field === undefined) return null;
  const head = field.replace(/\[\d+\]$/, '');
  const renames: Record<string, string> = {
    count: 'n',
    aspect: 'size',
    imageSize: 'size',
    imageUrls: 'image',
    mode: 'image',
    callbackUrl: 'callback_url',
    maskUrl: 'mask',
  };
  return renames[head] ?? head;
}

/**
 * OpenAI's `quality` onto the model: `auto` (or none) sends none — the reservation then assumes the
 * model's highest; DALL·E's `standard` and `hd` are ignored likewise. A GPT image tier passes
 * through when the model lists it in `qualities`, else 400 (param quality); a model that offers no
 * qualities (a Gemini or Replicate route) ignores it, as before, so OpenAI tools keep working.
 */
export function mapQuality(
  model: CatalogEntry,
  quality: string | null | undefined,
): ImageQuality | undefined {
  const wanted = quality?.trim() ?? '';
  if (['', 'auto', 'standard', 'hd'].includes(wanted) || !model.qualities) return undefined;
  const offered = model.qualities.find((q) => q === wanted);
  if (offered) return offered;
  throw new InvalidInput(
    `quality ${wanted} is not offered by model ${model.id}; accepted: ${model.qualities.join(', ')} or auto`,
    'quality',
  );
}
