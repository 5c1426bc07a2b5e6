/** An image's size class, smallest first (the long side near 1024, 2048 or 4096 pixels). */
export const IMAGE_SIZES = ['1K', '2K', '4K'] as const;
export type ImageSize = (typeof IMAGE_SIZES)[number];
