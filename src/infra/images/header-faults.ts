/** Largest accepted image: width × height × frames. */
export const MAX_IMAGE_PIXELS = 100_000_000;

/** The file ends before its structure does. */
export class Truncated extends Error {}
/** The structure is not what its format allows. */
export class Corrupt extends Error {}
/** The headers promise more than MAX_IMAGE_PIXELS. */
export class OverBudget extends Error {}

export function assertWithinBudget(pixels: number): void {
  if (!(pixels <= MAX_IMAGE_PIXELS)) throw new OverBudget();
}
