import { z } from 'zod';
import {
  type ActionRequest,
  EXPAND_FACTOR_MAX,
  EXPAND_FACTOR_MIN,
  IMAGE_ACTIONS,
  UPSCALE_FACTORS,
  VARY_STRENGTHS,
} from '../../client/atelier-client.js';
import {
  generateInputSchema,
  generateOutputSchema,
  type Submission,
  withoutUndefined,
} from './generate-image.js';
import type { GenerationTool } from './generate-image-tool.js';
import { actionPrice } from './spend-prices.js';

const { seed, wait } = generateInputSchema;

export const actInputSchema = {
  id: z
    .string()
    .min(1)
    .max(200)
    .describe(
      'The image to act on: a task id (tsk_…) that generate_image, refine_image or act_on_image returned (that ' +
        'image), or a generation id (gen_…) from list_my_generations (its first image). It must be a completed ' +
        'image of this account.',
    ),
  action: z
    .enum(IMAGE_ACTIONS)
    .describe(
      '"upscale": the same image with ×2 or ×4 the pixels per side (scale). "vary": a variation of it ' +
        '(strength). "expand": outpaint, the image kept in place on a larger canvas whose border is filled ' +
        '(factor, or aspect). "remove_background": the subject on a transparent PNG. "reroll": the work\'s own ' +
        'model and settings again with a new seed.',
    ),
  scale: z
    .union(UPSCALE_FACTORS.map((factor) => z.literal(factor)))
    .optional()
    .describe("upscale only: 2 (default) or 4, at most the upscaler's maxScale and 8192 px a side."),
  strength: z
    .enum(VARY_STRENGTHS)
    .optional()
    .describe('vary only: "subtle" (default, small changes) or "strong".'),
  factor: z
    .number()
    .min(EXPAND_FACTOR_MIN)
    .max(EXPAND_FACTOR_MAX)
    .optional()
    .describe(
      `expand only: each side of the canvas × factor, ${EXPAND_FACTOR_MIN}-${EXPAND_FACTOR_MAX} (default 1.5).`,
    ),
  aspect: z
    .string()
    .max(20)
    .optional()
    .describe('expand only, instead of factor: grow the canvas to this width:height ratio (e.g. "16:9").'),
  seed: seed.describe(
    `${seed.description ?? ''} Reroll without a seed draws a new one; the route must take seeds.`,
  ),
  count: z
    .number()
    .int()
    .min(1)
    .max(16)
    .optional()
    .describe("vary and reroll only: how many images, default 1, capped by the route's maxCount."),
  model: z
    .string()
    .max(200)
    .optional()
    .describe(
      "The action route's id when the deployment configures several for the action (the actions of " +
        'list_models); default the first.',
    ),
  wait,
};

type ActArgs = z.infer<z.ZodObject<typeof actInputSchema>>;

const DESCRIPTION =
  'Act on an earlier image of this account by id, as image apps do after picking one: upscale it, vary it, ' +
  'expand it (outpaint), remove its background, or reroll the work with a new seed. Answers like ' +
  'generate_image (task ids at once; set wait to get the finished images as stable URLs, resource links and ' +
  'thumbnails; MCP tasks work the same). Each result is a new version of the work: its list_my_generations ' +
  "item names the parent (parentId, parentTaskId) and the action (action, actionOptions); list_versions shows the work's versions. " +
  'Each image spends upstream credit like generate_image. Which actions this deployment offers, with their ' +
  'scales, strengths, routes and prices, is in list_models (its actions); an action it does not configure is ' +
  'refused with invalid_request.';

/** `act_on_image`: an action on a finished image (issue 45), POST /api/v1/generations/{id}/actions. */
export const ACT_ON_IMAGE: GenerationTool = {
  name: 'act_on_image',
  config: {
    title: 'Upscale, vary, expand, remove the background or reroll an image',
    description: DESCRIPTION,
    inputSchema: actInputSchema,
    outputSchema: generateOutputSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  submission: (args) => actSubmission(args as ActArgs),
};

function actSubmission(args: ActArgs): Submission {
  const { id, wait: seconds, ...fields } = args;
  const request: ActionRequest = withoutUndefined(fields);
  return {
    send: (client, signal) => client.act(id, request, { signal }),
    price: (client, signal) => actionPrice(client, id, request, signal),
    wait: seconds ?? 0,
    note: `Each new image is a version of ${id} made by ${args.action}; act on it again with its task id, or call list_versions to see every version.`,
  };
}
