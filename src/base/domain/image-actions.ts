/**
 * Actions on a finished image (issue 45): each makes a new work linked to the image it started from
 * (the lineage of lineage.ts). `reroll` runs the work's own model again with a new seed; the others
 * run on their own catalog route (an entry with `action`), absent when the catalog configures none.
 */
export const IMAGE_ACTIONS = ['upscale', 'vary', 'expand', 'remove_background', 'reroll'] as const;
export type ImageAction = (typeof IMAGE_ACTIONS)[number];

/** The actions that run on a route of their own (a catalog entry naming the action). */
export const ROUTED_ACTIONS = ['upscale', 'vary', 'expand', 'remove_background'] as const;
export type RoutedAction = (typeof ROUTED_ACTIONS)[number];

/** The settings of an action request that only some actions take. */
export const ACTION_SETTING_FIELDS = ['scale', 'strength', 'factor', 'aspect', 'count'] as const;
export type ActionSettingField = (typeof ACTION_SETTING_FIELDS)[number];

/** Which settings each action takes (the rest are refused, naming the field). */
export const SETTINGS_OF: Record<ImageAction, readonly ActionSettingField[]> = {
  upscale: ['scale'],
  vary: ['strength', 'count'],
  expand: ['factor', 'aspect'],
  remove_background: [],
  reroll: ['count'],
};

export const VARY_STRENGTHS = ['subtle', 'strong'] as const;
export type VaryStrength = (typeof VARY_STRENGTHS)[number];

/** Upscale factors a request may ask for; a route's `maxScale` caps them. */
export const UPSCALE_FACTORS = [2, 4] as const;

/** Expand: the canvas grows by a factor (per side's total), 1.25 to 2, or to another aspect ratio. */
export const EXPAND_FACTOR_MIN = 1.25;
export const EXPAND_FACTOR_MAX = 2;

/** The largest side an action's output may have (an upscale past it is refused before it starts). */
export const MAX_ACTION_SIDE = 8192;

/** Seeds are 0 to 2^31 − 1: an integer every upstream that takes a seed accepts, and SQL's `integer`. */
export const MAX_SEED = 2_147_483_647;

/**
 * What a task's upstream is asked to do beyond its mode, as the engine hands it to the provider:
 * the action and its settings. `expand` arrives as a masked edit of the padded canvas (its
 * reference; the mask's transparent pixels are the new border), so providers with masked edits need
 * nothing more; `vary` and `upscale`/`remove_background` arrive as an edit of the picked image.
 */
export type ActionSettings =
  | { name: 'upscale'; scale: number }
  | { name: 'vary'; strength: VaryStrength }
  | { name: 'expand'; factor: number; aspect?: string }
  | { name: 'remove_background' };

const VARY_WORDING = {
  subtle:
    'A subtle variation of this image: keep its subject, composition and colours; change only small details. ',
  strong: 'A strong variation of this image: keep its subject; reimagine composition, lighting and details. ',
} as const;
const EXPAND_WORDING =
  'Extend this picture into the empty border around it, continuing the scene seamlessly; keep the existing picture unchanged. ';

/**
 * The prompt an action's upstream is sent: the work's own prompt (what history keeps), after the
 * words that ask an image model for a variation or an outpainting; upscalers and background
 * removers get the prompt as it is. Cut to `maxLength` from the end of the work's prompt.
 */
export function upstreamPromptOf(
  action: ActionSettings | undefined,
  prompt: string,
  maxLength: number,
): string {
  const wording =
    action?.name === 'vary' ? VARY_WORDING[action.strength] : action?.name === 'expand' ? EXPAND_WORDING : '';
  return wording + prompt.slice(0, maxLength - wording.length);
}
