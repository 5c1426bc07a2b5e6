import type { ImgHTMLAttributes } from 'react';

/** The rendition widths /files serves (src/infra/blobs/renditions.ts): a fixed list, so URLs are cacheable. */
const WIDTHS = [160, 320, 480, 640, 960, 1280] as const;

/** True for Atelier's own stored images, the ones /files can resize. */
function isOwnFile(url: string): boolean {
  try {
    return new URL(url, window.location.href).pathname.startsWith('/files/');
  } catch {
    return false;
  }
}

function renditionUrl(url: string, width: number, format?: 'avif' | 'webp'): string {
  const separator = url.includes('?') ? '&' : '?';
  return `${url}${separator}w=${width}${format ? `&format=${format}` : ''}`;
}

/** The widths worth offering for an image `width` pixels wide: up to the first at least as wide. */
function widthsFor(width: number | undefined): number[] {
  const offered: number[] = [];
  for (const candidate of WIDTHS) {
    offered.push(candidate);
    if (width !== undefined && candidate >= width) break;
  }
  return offered;
}

function srcSet(url: string, widths: number[], format?: 'avif' | 'webp'): string {
  return widths.map((w) => `${renditionUrl(url, w, format)} ${w}w`).join(', ');
}

/**
 * An image shown smaller than its size: resized renditions (AVIF, then WebP, then the original's
 * format) at the width the layout needs (`sizes`), instead of the full image. Opening it large
 * still uses the original URL. Images from elsewhere are shown as they are.
 */
export function Thumbnail({
  src,
  alt,
  sizes,
  width,
  ...rest
}: Omit<ImgHTMLAttributes<HTMLImageElement>, 'src' | 'srcSet' | 'alt'> & {
  src: string;
  alt: string;
  sizes: string;
  width?: number | undefined;
}) {
  if (!isOwnFile(src)) return <img src={src} alt={alt} width={width} {...rest} />;
  const widths = widthsFor(width);
  const fallback = renditionUrl(src, widths.includes(640) ? 640 : (widths.at(-1) ?? 640));
  return (
    <picture>
      <source type="image/avif" srcSet={srcSet(src, widths, 'avif')} sizes={sizes} />
      <source type="image/webp" srcSet={srcSet(src, widths, 'webp')} sizes={sizes} />
      <img src={fallback} srcSet={srcSet(src, widths)} sizes={sizes} alt={alt} width={width} {...rest} />
    </picture>
  );
}
