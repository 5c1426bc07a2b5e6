/**
 * A quality tier a model may offer (OpenAI's GPT image `quality`; GPT Image 2.5 and 2.6 add `xhigh`
 * and `max`), lowest first. A model lists the ones it takes in its catalog entry (`qualities`).
 */
export const IMAGE_QUALITIES = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type ImageQuality = (typeof IMAGE_QUALITIES)[number];
