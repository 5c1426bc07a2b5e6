/** What a generation does: draw from the prompt alone, edit one reference image, or fuse several. */
export const GENERATION_MODES = ['text', 'edit', 'fusion'] as const;
export type GenerationMode = (typeof GENERATION_MODES)[number];
