import { z } from 'zod';
import {
  EXPAND_FACTOR_MAX,
  EXPAND_FACTOR_MIN,
  IMAGE_ACTIONS,
  VARY_STRENGTHS,
} from '../domain/image-actions.js';
import { ACTION_SETTING_RULES } from './cross-field-rules.js';
import { seedSchema } from './generate-body.js';

/**
 * The body of POST /api/v1/generations/{id}/actions (and the website's POST /web/api/works/{id}/actions):
 * an action on one finished image of a work (issue 45, docs/api.md "Actions"). Settings that do not
 * belong to the action named are refused by the use case, naming the field; unknown fields are
 * ignored, as on generate.
 */
export const actionBodySchema = z
  .looseObject({
    action: z
      .enum(IMAGE_ACTIONS, { error: `must be one of ${IMAGE_ACTIONS.join(', ')}` })
      .describe(
        'upscale: the image at ×2 or ×4 its pixels per side; vary: a subtle or strong variation; expand: a larger canvas, the new border painted (outpainting); remove_background: a transparent PNG; reroll: the work again with its own settings and a new seed',
      ),
    taskId: z
      .string({ error: 'must be a string' })
      .max(200, { error: 'must be at most 200 characters' })
      .regex(/^tsk_/, { error: 'must be an image id (tsk_…) of the work' })
      .nullish()
      .describe(
        "Which image of the work (a tsk_… id of it); default: the path's image (a tsk_ id), else the work's first finished image",
      ),
    scale: z
      .union([z.literal(2), z.literal(4)], { error: 'must be 2 or 4' })
      .nullish()
      .describe("upscale: 2 or 4 (default 2), at most the route's maxScale (GET /api/v1/models, actions)"),
    strength: z
      .enum(VARY_STRENGTHS, { error: 'must be one of subtle, strong' })
      .nullish()
      .describe('vary: subtle (default) or strong'),
    factor: z
      .number({ error: 'must be a number' })
      .min(EXPAND_FACTOR_MIN, { error: `must be between ${EXPAND_FACTOR_MIN} and ${EXPAND_FACTOR_MAX}` })
      .max(EXPAND_FACTOR_MAX, { error: `must be between ${EXPAND_FACTOR_MIN} and ${EXPAND_FACTOR_MAX}` })
      .nullish()
      .describe('expand: each side grows by this factor, the image centred (1.25 to 2; default 1.5)'),
    aspect: z
      .string({ error: 'must be a string' })
      .max(20, { error: 'must be at most 20 characters' })
      .nullish()
      .describe(
        'expand, instead of factor: grow the canvas to this ratio W:H (one pair of sides grows, the image centred)',
      ),
    seed: seedSchema.describe(
      "The seed of the first new image (0 to 2147483647), on routes that take one; default: a new one (reroll's point)",
    ),
    count: z
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .nullish()
      .describe("vary and reroll: images to make, 1 to the route's cap (default 1); the others make one"),
    model: z
      .string({ error: 'must be a string' })
      .max(64, { error: 'must be at most 64 characters' })
      .nullish()
      .describe(
        "The action's route (its id in GET /api/v1/models `actions`) when the deployment configures several; default the first",
      ),
    callbackUrl: z
      .string({ error: 'must be a string' })
      .nullish()
      .describe('Optional webhook URL: receives the signed task record when each task ends'),
  })
  .meta({
    id: 'ActionRequest',
    description: 'An action on a finished image',
    allOf: ACTION_SETTING_RULES,
    examples: [
      { action: 'upscale', scale: 2 },
      { action: 'vary', strength: 'strong', count: 2 },
    ],
  });

export type ActionBody = z.output<typeof actionBodySchema>;

/** The path's work: a generation or one of its images. */
export const workIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .describe("A generation id (gen_…: its first finished image) or one of its images' task id (tsk_…)"),
});

/** What the actions' descriptions say, on the API and the website alike. */
export const ACTIONS_DESCRIPTION =
  "Extra route (not in the spec). Runs an action on one finished image of the account's work — `upscale` (×2/×4), `vary` (subtle/strong), `expand` (by a factor or to a ratio), `remove_background` (a transparent PNG) or `reroll` (the work's own settings, a new seed) — as new tasks, answered at once with their ids like generate. The new work names the image as its parent and the action (`action`, `actionOptions` in history; a version in GET /history/{id}/versions). Each action but reroll runs on its catalog route (GET /api/v1/models, `actions`): an action the deployment does not configure is a 400 naming `action`. Budgets, tier policies, capacity, webhooks and the Idempotency-Key apply as on generate. 404 when the work or image is not this account's.";
