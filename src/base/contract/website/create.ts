/**
 * The Create page's shapes (/web/api): its cards (pending tasks, cleared cards), how long tasks
 * take, a rendering task's preview frames, recent prompts and named presets.
 */
import { z } from 'zod';
import { GENERATION_MODES } from '../../domain/generation-modes.js';
import { fieldError } from '../field-error.js';
import { integerQuery } from '../paging.js';
import { taskRecordSchema } from '../tasks.js';
import { workSourceSchema } from './shared.js';

/** Most cards one pending listing returns: a person's screen, not an export. */
export const MAX_PENDING_CARDS = 200;
/** How many deleted works a listing with `since` names at most. */
export const MAX_REMOVED_WORKS = 500;
/**
 * How far back the creation view's first listing reaches for finished tasks: a working session
 * (a reload, a lunch break) shows the same cards; older work lives in saved works.
 */
export const RECENT_CARDS_MS = 24 * 60 * 60 * 1000;

export const pendingTasksQuerySchema = z.object({
  since: z
    .string({ error: 'must be a time in milliseconds since the epoch' })
    .regex(/^(\d{1,15})?$/, 'must be a time in milliseconds since the epoch')
    .optional()
    .transform((raw) => (raw ? Number(raw) : undefined))
    .describe(
      'Also list tasks created at or after this time (epoch milliseconds), finished or not; absent: the last 24 hours',
    ),
});

export const taskCardSchema = taskRecordSchema
  .extend({
    generation_id: z.string(),
    source: workSourceSchema,
    prompt: z.string(),
    model: z.string(),
    mode: z.string(),
    aspect: z.string(),
    imageSize: z.string(),
    index: z.number().int().describe('Position of the image in its generation, from 0'),
    count: z.number().int().describe('How many images the generation asked for'),
    refs: z
      .array(z.string())
      .optional()
      .describe(
        "The generation's reference images (its imageUrls as given; the listing always sends them): a re-run sends them again",
      ),
    createdAt: z.number().int().describe('Milliseconds since the Unix epoch'),
  })
  .describe('A task with what was asked for: a card of the creation view');

export const pendingTasksSchema = z
  .object({
    now: z.number().int().describe("The server's time (epoch ms): the next listing's `since`"),
    clearedAt: z
      .number()
      .int()
      .nullable()
      .describe('When the account last cleared finished cards (epoch ms); tasks final by then are left out'),
    tasks: z
      .array(taskCardSchema)
      .max(MAX_PENDING_CARDS)
      .describe(`Newest first, at most ${MAX_PENDING_CARDS}`),
    has_more: z
      .boolean()
      .optional()
      .describe(
        `Whether the listing left tasks out (more than ${MAX_PENDING_CARDS} matched): the rest are in saved works`,
      ),
    removed: z
      .array(z.string())
      .max(MAX_REMOVED_WORKS)
      .optional()
      .describe(
        `With \`since\`: the ids of the account's works (generations) deleted at or after it, latest first, at most ${MAX_REMOVED_WORKS} — their cards leave the view`,
      ),
    removed_more: z
      .boolean()
      .optional()
      .describe(
        `Whether more than ${MAX_REMOVED_WORKS} works were deleted since \`since\`: the next listing should be a whole one (no \`since\`)`,
      ),
  })
  .describe('Pending tasks');

export const clearedCardsSchema = z
  .object({ clearedAt: z.number().int().describe('The instant cleared up to (epoch ms)') })
  .describe('Finished cards cleared');

/** How many of the account's newest completed tasks an estimate reads. */
export const ESTIMATE_SAMPLE_TASKS = 100;

export const taskEstimatesSchema = z
  .object({
    estimates: z
      .array(
        z.object({
          model: z.string(),
          imageSize: z.string(),
          median_ms: z
            .number()
            .int()
            .describe('The median time from submit to result of these tasks (milliseconds)'),
          samples: z.number().int().describe('How many completed tasks the median is of'),
        }),
      )
      .describe(`One per model and size among the account's ${ESTIMATE_SAMPLE_TASKS} newest completed tasks`),
  })
  .describe("How long the account's recent tasks took, per model and size");

/** Partial frames a website-made task asks for (the live preview on its card; 0-3, OpenAI's partial_images). */
export const WEB_PREVIEW_FRAMES = 2;

export const previewParamsSchema = z.object({ id: z.string().describe('Task id (tsk_…)') });
export const previewQuerySchema = z.object({
  frame: z
    .string({ error: 'must be 0, 1 or 2' })
    .regex(/^[0-2]$/, 'must be 0, 1 or 2')
    .transform(Number)
    .describe(
      'Which frame (0 first); the stream of /api/v1/tasks/events?previews=true says how many there are',
    ),
});

export const MAX_RECENT_PROMPTS = 50;

export const recentPromptsQuerySchema = z.object({
  q: z
    .string({ error: 'must be a string' })
    .max(200, 'must be at most 200 characters')
    .optional()
    .transform((raw) => raw?.trim() || undefined)
    .describe("Only prompts with these words (word beginnings, as saved works' search)"),
  limit: integerQuery({ fallback: 20, min: 1, max: MAX_RECENT_PROMPTS }).describe(
    `How many prompts at most (default 20, at most ${MAX_RECENT_PROMPTS})`,
  ),
});

export const recentPromptsSchema = z
  .object({
    prompts: z
      .array(z.string())
      .describe("Distinct prompts of the account's saved works, the most recently used first"),
  })
  .describe('Recent prompts');

export const MAX_PRESETS = 50;

/** A named preset of the Create form: its settings, and a style suffix appended to the prompt. */
export const presetSettingsSchema = z.object({
  model: z
    .string({ error: fieldError('must be a string') })
    .min(1, 'must not be empty')
    .max(100),
  mode: z.enum(GENERATION_MODES, { error: 'must be text, edit or fusion' }).optional(),
  aspect: z.string({ error: fieldError('must be a string') }).max(10, 'is too long'),
  imageSize: z.string({ error: fieldError('must be a string') }).max(10, 'is too long'),
  count: z.number({ error: 'must be an integer from 1 to 10' }).int().min(1).max(10),
  suffix: z
    .string({ error: fieldError('must be a string') })
    .max(1000, 'must be at most 1,000 characters')
    .optional()
    .describe('Appended to the prompt when the preset is applied (", watercolour, soft light")'),
});

export const presetNameSchema = z
  .string({ error: fieldError('must be a string') })
  .transform((name) => name.trim())
  .pipe(z.string().min(1, 'must not be empty').max(60, 'must be at most 60 characters'));

export const presetSchema = presetSettingsSchema
  .extend({ name: z.string(), updatedAt: z.number().int().describe('Epoch ms') })
  .describe('A named preset');

export const presetsSchema = z
  .object({ presets: z.array(presetSchema).describe('By name') })
  .describe("The account's presets");

export const presetParamsSchema = z.object({ name: presetNameSchema.describe("The preset's name") });

export const presetBodySchema = presetSettingsSchema.describe("A preset's settings");

export type TaskCard = z.infer<typeof taskCardSchema>;
export type PendingTasks = z.infer<typeof pendingTasksSchema>;
export type TaskEstimates = z.infer<typeof taskEstimatesSchema>;
export type RecentPrompts = z.infer<typeof recentPromptsSchema>;
export type Preset = z.infer<typeof presetSchema>;
export type PresetSettings = z.infer<typeof presetSettingsSchema>;
