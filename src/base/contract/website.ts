/**
 * The wire shapes of the website's own API (/web/api): the route schemas validate and serialise
 * with them, the OpenAPI document lists them under the `website` tag, and the website's types are
 * inferred from them. The /api/v1 shapes they build on (task record, generate body and answer,
 * error body) are the public contract's own.
 */
import { z } from 'zod';
import { ASSET_KINDS } from '../domain/asset-kinds.js';
import { GENERATION_MODES, type GenerationMode } from '../domain/generation-modes.js';
import { TIERS } from '../domain/tiers.js';
import { assetSchema } from './assets.js';
import { curationQuery } from './curation.js';
import { fieldError } from './field-error.js';
import { generateBodySchema } from './generate-body.js';
import { generateResponseSchema, historyItemSchema } from './generations.js';
import { pageQuery as contractPageQuery, pageFields } from './paging.js';
import { taskRecordSchema } from './tasks.js';
import { usageQuerySchema, usageReportSchema } from './usage.js';

/** The account page's usage chart reads the same report as GET /api/v1/user/usage. */
export { generateBodySchema, generateResponseSchema, usageQuerySchema, usageReportSchema };

/** The website's session cookie: an opaque random token, HttpOnly, SameSite=Lax. */
export const SESSION_COOKIE = 'atelier_session';
/** Its name wherever the site is served over https (Secure, Path=/, no Domain: no sibling can plant one). */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
export const WEBSITE_TAG = 'website';
/** The name the session cookie's security scheme is registered under in the OpenAPI document. */
export const WEBSITE_SESSION_SCHEME = 'websiteSession';
export const websiteSessionSecurityScheme = {
  type: 'apiKey',
  in: 'cookie',
  name: SESSION_COOKIE,
  description:
    'The session cookie set by POST /web/api/session: `atelier_session` over plain http, `__Host-atelier_session` over https. A request carrying two session cookies is refused (401). State-changing requests must also carry an Origin (or Referer) of this server.',
} as const;
/** The security requirement of every signed-in website route. */
export const websiteSession = [{ [WEBSITE_SESSION_SCHEME]: [] }];

/** Most cards one pending listing returns: a person's screen, not an export. */
export const MAX_PENDING_CARDS = 200;
/** How many deleted works a listing with `since` names at most. */
export const MAX_REMOVED_WORKS = 500;
export const MAX_WEB_PAGE_LIMIT = 50;

const pageQuery = (defaultLimit: number) => contractPageQuery(MAX_WEB_PAGE_LIMIT, defaultLimit);

const source = z
  .enum(['api', 'web'])
  .describe('Submitted through the API (`api`) or from the website (`web`)');

// Sign-in, the session state and password changes: their own module.
export * from './website-session.js';

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
    source,
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
  limit: z
    .string({ error: `must be an integer from 1 to ${MAX_RECENT_PROMPTS}` })
    .regex(/^\d{1,3}$/, `must be an integer from 1 to ${MAX_RECENT_PROMPTS}`)
    .optional()
    .transform((raw) => (raw ? Number(raw) : 20))
    .refine((n) => n >= 1 && n <= MAX_RECENT_PROMPTS, `must be an integer from 1 to ${MAX_RECENT_PROMPTS}`)
    .describe(`How many prompts at most (default 20, at most ${MAX_RECENT_PROMPTS})`),
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

/** An epoch-milliseconds bound of a date filter. */
const instantQuery = (what: string) =>
  z
    .string({ error: 'must be a time in milliseconds since the epoch' })
    .regex(/^(\d{1,15})?$/, 'must be a time in milliseconds since the epoch')
    .optional()
    .transform((raw) => (raw ? Number(raw) : undefined))
    .describe(what);

/** Optional text that reads as absent when empty (a form submitted with a blank field). */
const optionalText = (max: number, what: string) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((raw) => raw?.trim() || undefined)
    .describe(what);

/** Search and filters shared by saved works and the library (server-side, paged). */
const searchQuery = {
  q: optionalText(200, 'Only items whose prompt contains this text (case-insensitive)'),
  model: optionalText(100, 'Only items made with this model id'),
  mode: z
    .enum([...GENERATION_MODES, ''], { error: 'must be text, edit or fusion' })
    .optional()
    .transform((mode) => mode || undefined)
    .describe('Only items made in this mode'),
  from: instantQuery('Only items created at or after this time (epoch ms)'),
  to: instantQuery('Only items created before this time (epoch ms)'),
};

export const worksQuerySchema = z.object({ ...pageQuery(24), ...searchQuery, ...curationQuery });

/** A history item without its images (each task's record carries them) and never `removed`. */
export const savedWorkSchema = historyItemSchema
  .omit({ images: true, removed: true })
  .extend({ source, tasks: z.array(taskRecordSchema).describe("Every task's record, in task order") })
  .describe('A saved work: a generation not deleted');

export const savedWorksPageSchema = z
  .object({ items: z.array(savedWorkSchema).describe('Newest first'), ...pageFields })
  .describe('Saved works page');

export const workParamsSchema = z.object({ id: z.string().describe('Generation id (gen_…)') });

export const libraryQuerySchema = z.object({
  ...pageQuery(30),
  ...searchQuery,
  kind: z
    .enum([...ASSET_KINDS, ''], { error: 'must be upload or result' })
    .optional()
    .transform((kind) => kind || undefined)
    .describe('Only uploads, or only results; empty or absent for both'),
});

/** An asset as /api/v1/assets lists it, less its hash and task, plus its prompt. */
export const libraryAssetSchema = assetSchema
  .omit({ sha256: true, taskId: true })
  .extend({
    prompt: z.string().nullable().describe('The prompt a result was made from (alt text); null for uploads'),
    name: z
      .string()
      .nullable()
      .describe(
        "An upload's file name as sent (a direct upload's, or a URL's last segment); null for results and for uploads stored before names were kept",
      ),
  })
  .describe('An asset of the library');

export const libraryPageSchema = z
  .object({ items: z.array(libraryAssetSchema).describe('Newest first'), ...pageFields })
  .describe('Library page');

export const accountInfoSchema = z
  .object({
    email: z.string(),
    tier: z.enum(TIERS),
    has_key: z.boolean().describe('Whether the account can reach the upstream of the default model'),
    api_key_hint: z.string().nullable().describe('The API key shortened, for telling keys apart'),
    base_url: z.string().describe("The service's public base URL"),
    upstream: z.object({
      default_provider: z.string(),
      key_required: z.boolean().describe("Whether the default model's provider needs a key"),
      providers: z
        .array(
          z.object({
            name: z.string(),
            configured: z.boolean().describe('Enabled on this deployment'),
            own_key: z.boolean().describe('The account stored its own key (never shown back)'),
            deployment_key: z.boolean().describe('The deployment supplies a key'),
          }),
        )
        .describe('The providers a key can be set for'),
    }),
  })
  .describe('Account settings');

export const upstreamKeyParamsSchema = z.object({
  provider: z.string().describe('A provider that takes a key (see upstream.providers)'),
});

export const upstreamKeyBodySchema = z
  .looseObject({
    key: z
      .string({ error: fieldError('must be a string') })
      .max(4096, 'is too long')
      .refine((key) => key.trim() !== '', 'must not be empty (to remove a key, DELETE it)'),
  })
  .describe('An upstream key');

export const rotatedApiKeySchema = z
  .object({
    api_key: z.string().describe('The new API key, shown this once'),
    api_key_hint: z.string().nullable(),
  })
  .describe('The new API key');

/** The search and filters of a saved works or library query, as the routes pass them to the store. */
export interface SearchFilters {
  q?: string | undefined;
  model?: string | undefined;
  mode?: GenerationMode | undefined;
  from?: number | undefined;
  to?: number | undefined;
  /** Only starred works (src/capabilities/curation). */
  starred?: true | undefined;
  /** Only works in this collection of the account (src/capabilities/curation; checked to be the account's first). */
  collection?: string | undefined;
}

export type TaskCard = z.infer<typeof taskCardSchema>;
export type TaskEstimates = z.infer<typeof taskEstimatesSchema>;
export type RecentPrompts = z.infer<typeof recentPromptsSchema>;
export type Preset = z.infer<typeof presetSchema>;
export type PresetSettings = z.infer<typeof presetSettingsSchema>;
export type SavedWork = z.infer<typeof savedWorkSchema>;
export type LibraryAsset = z.infer<typeof libraryAssetSchema>;
export type AccountInfo = z.infer<typeof accountInfoSchema>;
export type UsageReport = z.infer<typeof usageReportSchema>;
export type PendingTasks = z.infer<typeof pendingTasksSchema>;
export type SavedWorksPage = z.infer<typeof savedWorksPageSchema>;
export type LibraryPage = z.infer<typeof libraryPageSchema>;
