import { resolve } from 'node:path';
import { z } from 'zod';
import type { TracingConfig } from '../../base/observability/tracing.js';
import { parseAllowedHosts } from '../outbound/address-policy.js';
import { parseS3StorageUrl, type StorageConfig, storageOf } from './storage-config.js';
import { tracingConfigOf } from './tracing-config.js';
import { parseTrustProxy, type TrustProxy } from './trust-proxy.js';

export { parseS3StorageUrl, type S3StorageConfig, type StorageConfig } from './storage-config.js';

/**
 * A whole number in [min, max] written in decimal; unset or empty reads as `fallback`. The refusal
 * says what is accepted ("PORT: must be a whole number from 0 to 65535"), where Zod's coercion
 * would say "expected number, received NaN".
 */
function wholeNumber(options: { min: number; max: number; fallback: number; what?: string }) {
  const { min, max, fallback } = options;
  const accepted = `must be ${options.what ?? 'a whole number'} from ${min} to ${max}`;
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const text = raw?.trim() ?? '';
      if (text === '') return fallback;
      const value = Number(text);
      if (/^\d+$/.test(text) && value >= min && value <= max) return value;
      ctx.addIssue({ code: 'custom', message: `${accepted} (got ${JSON.stringify(raw)})` });
      return z.NEVER;
    });
}
const DAY_MS = 24 * 60 * 60 * 1000;
/** Milliseconds: `min` (default 0) to `max` (default a day). */
const milliseconds = (fallback: number, min = 0, max = DAY_MS) =>
  wholeNumber({ min, max, fallback, what: 'a whole number of milliseconds' });
/** Standard Webhooks' recommended schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS = [
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));
const msList = z
  .string()
  .transform((v) => v.split(',').map((entry) => entry.trim()))
  .pipe(
    z
      .array(
        z
          .string()
          .regex(/^\d+$/, 'must be comma-separated integer milliseconds')
          .transform(Number)
          .pipe(z.number().max(DAY_MS, `must be at most ${DAY_MS} ms each`)),
      )
      .min(1)
      .max(50, 'at most 50 delays'),
  );

/** Every environment variable Atelier reads, with its default. Documented in the README. */
const envSchema = z.object({
  // 0 asks the system for a free port (tests use it).
  PORT: wholeNumber({ min: 0, max: 65535, fallback: 8080 }),
  HOST: z.string().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ATELIER_DATA_DIR: z.string().min(1).default('./data'),
  ATELIER_DATABASE_URL: optionalText.refine(
    (v) => v === undefined || !/^postgres(ql)?:/i.test(v) || URL.canParse(v),
    'must be a SQLite file path or a postgres://user@host:port/database URL',
  ),
  ATELIER_STORAGE: z
    .string()
    .default('file')
    .transform((v) => v.trim())
    .refine((v) => v === 'file' || parseS3StorageUrl(v) !== undefined, {
      message: 'must be "file" or s3://bucket[/prefix] (a valid bucket name, prefix of [A-Za-z0-9._-/])',
    }),
  ATELIER_S3_ENDPOINT: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  ATELIER_FILES_REDIRECT: z.enum(['true', 'false']).default('false'),
  ATELIER_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  AWS_ACCESS_KEY_ID: optionalText,
  AWS_SECRET_ACCESS_KEY: optionalText,
  AWS_SESSION_TOKEN: optionalText,
  AWS_REGION: optionalText,
  ATELIER_PUBLIC_BASE_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  ATELIER_UPLOAD_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return parseAllowedHosts(v);
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          message: `${(error as Error).message} (expected comma-separated host or host:port, e.g. localhost,127.0.0.1:9000)`,
        });
        return z.NEVER;
      }
    }),
  ATELIER_CATALOG: optionalText,
  ATELIER_POLICY_FILE: optionalText,
  // How often each node re-reads what operators change at run time (the catalog, tier policies): docs/operations.md.
  ATELIER_CONFIG_REFRESH_MS: milliseconds(2000, 50, 60_000),
  ATELIER_MASTER_KEY: optionalText,
  ATELIER_ROLES: z
    .string()
    .default('api,worker')
    .transform((v) =>
      v
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(['api', 'worker'])).min(1)),
  ATELIER_LOCAL_LATENCY_MS: milliseconds(4000),
  ATELIER_TASK_DEADLINE_MS: milliseconds(20 * 60 * 1000, 1000),
  // Kept under the 10-minute limit of common proxies and of the openai client's own timeout.
  ATELIER_OPENAI_WAIT_MS: milliseconds(300_000, 1, 600_000),
  // How long an MCP tool call waits for the person's spend confirmation (docs/mcp.md).
  ATELIER_MCP_CONFIRM_TIMEOUT_MS: milliseconds(300_000, 1000, 1_800_000),
  // Task steps in flight per worker (upstream calls and polls mostly wait): see docs/operations.md.
  ATELIER_WORKER_CONCURRENCY: wholeNumber({ min: 1, max: 50_000, fallback: 2000 }),
  ATELIER_SUBMIT_MAX_ATTEMPTS: wholeNumber({ min: 1, max: 50, fallback: 6 }),
  ATELIER_UPSTREAM_TIMEOUT_MS: milliseconds(5 * 60 * 1000, 1000),
  ATELIER_WEBHOOK_RETRY_SCHEDULE_MS: optionalText.pipe(msList.optional()),
  ATELIER_GEMINI_API_KEY: optionalText,
  ATELIER_GEMINI_BASE_URL: optionalText,
  ATELIER_OPENAI_API_KEY: optionalText,
  ATELIER_OPENAI_BASE_URL: optionalText,
  ATELIER_REPLICATE_API_TOKEN: optionalText,
  ATELIER_REPLICATE_BASE_URL: optionalText,
  ATELIER_FAL_API_KEY: optionalText,
  ATELIER_FAL_BASE_URL: optionalText,
  // ComfyUI servers: one or more base URLs, comma-separated (docs/providers.md, "ComfyUI").
  ATELIER_COMFYUI_URL: optionalText.pipe(
    z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((u) => u.trim().replace(/\/+$/, ''))
          .filter(Boolean),
      )
      .pipe(
        z.array(z.url({ protocol: /^https?$/, error: 'each ComfyUI URL must be http(s)://host[:port]' })),
      ),
  ),
  ATELIER_COMFYUI_MAX_QUEUE: wholeNumber({ min: 1, max: 1000, fallback: 4 }),
  ATELIER_DEMO_ACCOUNT: z.enum(['true', 'false']).default('true'),
  ATELIER_STAGE_TIMING: z.enum(['0', '1']).default('0'),
  ATELIER_TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v, ctx) => {
      const parsed = parseTrustProxy(v);
      if (!('problem' in parsed)) return parsed;
      ctx.addIssue({ code: 'custom', message: parsed.problem });
      return z.NEVER;
    }),
  ATELIER_BODY_IDLE_TIMEOUT_MS: milliseconds(30_000, 50, 30_000),
  ATELIER_BODY_DEADLINE_MS: milliseconds(60_000, 50),
  ATELIER_UPLOAD_DEADLINE_MS: milliseconds(300_000, 50),
  // Resource caps (issue 25): defaults no honest caller meets; past them, 429 with Retry-After.
  ATELIER_RENDITION_CONCURRENCY: wholeNumber({ min: 1, max: 64, fallback: 2 }),
  ATELIER_RENDITION_QUEUE: wholeNumber({ min: 0, max: 10_000, fallback: 32 }),
  ATELIER_SEARCH_CONCURRENCY: wholeNumber({ min: 1, max: 64, fallback: 2 }),
  ATELIER_SEARCH_QUEUE: wholeNumber({ min: 0, max: 10_000, fallback: 32 }),
  ATELIER_PASSWORD_HASH_CONCURRENCY: wholeNumber({ min: 1, max: 64, fallback: 2 }),
  ATELIER_PASSWORD_HASH_QUEUE: wholeNumber({ min: 0, max: 10_000, fallback: 32 }),
  ATELIER_STREAMS_PER_ACCOUNT: wholeNumber({ min: 1, max: 1_000_000, fallback: 200 }),
  ATELIER_STREAMS_PER_ADDRESS: wholeNumber({ min: 1, max: 1_000_000, fallback: 1000 }),
  ATELIER_UPLOADS_PER_DAY: wholeNumber({ min: 1, max: 100_000_000, fallback: 5000 }),
  ATELIER_RETENTION_RESULTS_DAYS: wholeNumber({
    min: 0,
    max: 36_500,
    fallback: 0,
    what: 'a whole number of days',
  }),
  ATELIER_RETENTION_UPLOADS_DAYS: wholeNumber({
    min: 0,
    max: 36_500,
    fallback: 0,
    what: 'a whole number of days',
  }),
  ATELIER_UPLOAD_BYTES_PER_DAY: wholeNumber({
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 10 * 1024 ** 3,
  }),
  ATELIER_IDEMPOTENCY_KEYS_PER_ACCOUNT: wholeNumber({ min: 1, max: 100_000_000, fallback: 10_000 }),
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  port: number;
  host: string;
  logLevel: Env['LOG_LEVEL'];
  dataDir: string;
  /** A `postgres://` (or `postgresql://`) URL selects PostgreSQL; anything else is a SQLite file path (or `:memory:`). */
  databaseUrl: string;
  /** Where blobs live: files under `blobDir`, or objects in an S3-compatible bucket. */
  storage: StorageConfig;
  /** Where blobs live on disk (with `file` storage). */
  blobDir: string;
  /** `/files/…` answers a redirect to a short-lived presigned URL instead of streaming (S3 storage only). */
  filesRedirect: boolean;
  /** The deployment's retention of results and of uploads, in days (0: kept until deleted). */
  retentionDays: { results: number; uploads: number };
  /** When set, GET /metrics asks for `Authorization: Bearer <token>`; else /metrics is off (404). */
  metricsToken: string | undefined;
  /** Traces over OTLP/HTTP (OpenTelemetry's standard variables, tracing-config.ts); absent: off. */
  tracing?: TracingConfig | undefined;
  /** Base of every URL Atelier hands out, without a trailing slash. */
  publicBaseUrl: string;
  /** Canonical `host` (every port) or `host:port` entries exempt from the public-address check (development only). */
  uploadAllowedHosts: string[];
  catalogPath: string | undefined;
  /** Tier policies (allowed models, image quotas, tasks in flight): a JSON file; none by default. */
  policyPath: string | undefined;
  /** How often each node re-reads what operators change at run time: the catalog's and the tier policies' versions in force. */
  configRefreshMs: number;
  masterKey: string | undefined;
  roles: { api: boolean; worker: boolean };
  localLatencyMs: number;
  taskDeadlineMs: number;
  /** How long an OpenAI-compatible images request waits for its tasks before answering with their ids. */
  openAiWaitMs: number;
  /** How long an MCP tool call waits for the person's spend confirmation (docs/mcp.md). */
  mcpConfirmTimeoutMs: number;
  workerConcurrency: number;
  submitMaxAttempts: number;
  upstreamTimeoutMs: number;
  /** Delay before each webhook delivery attempt, counted from the previous one; its length is the attempt count. */
  webhookRetryScheduleMs: number[];
  providers: {
    gemini: { apiKey: string | undefined; baseUrl: string | undefined };
    openai: { apiKey: string | undefined; baseUrl: string | undefined };
    replicate: { apiKey: string | undefined; baseUrl: string | undefined };
    fal: { apiKey: string | undefined; baseUrl: string | undefined };
    /** ComfyUI servers (one pool) and the prompts each may hold at once (running + waiting). */
    comfyui: { urls: string[]; maxQueue: number };
  };
  /** A variable the catalog names (an OpenAI-compatible upstream's `apiKeyEnv`), trimmed; unset or empty is undefined. */
  readEnv(name: string): string | undefined;
  createDemoAccount: boolean;
  /** `server-timing` stage marks on the OpenAI image routes' synchronous answers (bench row S1). */
  stageTiming: boolean;
  /**
   * Which hops' X-Forwarded-For/-Proto to believe (only behind reverse proxies that set them):
   * none, the nearest `n` hops, or hops from these addresses/CIDR ranges (Fastify's trustProxy).
   */
  trustProxy: TrustProxy;
  /** Settings accepted but worth a word to the operator; logged once when the server starts. */
  warnings: string[];
  /** Slow clients: a body (or header block) silent this long is cut off; whole-body deadlines per route. */
  requestTimeouts: { bodyIdleMs: number; bodyDeadlineMs: number; uploadDeadlineMs: number };
  /** Caps that keep one account or client from slowing the others (docs/operations.md#resource-limits). */
  resourceCaps: ResourceCaps;
}

/** Per-node pools (renditions, search), open streams, and per-account daily and stored quotas. */
export interface ResourceCaps {
  /** First-time renditions encoded at once on this node, and how many may wait their turn. */
  renditions: { concurrency: number; queue: number };
  /** Saved-works and library searches run at once on this node, and how many may wait. */
  searches: { concurrency: number; queue: number };
  /** Password hashes (scrypt, 128 MiB each) computed at once on this node, and how many may wait. */
  passwordHashes: { concurrency: number; queue: number };
  /** Open event streams plus long-polls on this node, per account and per client address. */
  streams: { perAccount: number; perAddress: number };
  /** Uploads stored per account per UTC day, by count and by bytes (all nodes, in the database). */
  uploadsPerDay: { count: number; bytes: number };
  /** Idempotency records an account may hold at once (all nodes, in the database). */
  idempotencyKeysPerAccount: number;
}

/** Parses the environment once; throws an Error that names every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const { storage, problems } = storageOf(e);
  if (problems.length > 0) {
    throw new Error(`Invalid configuration:\n${problems.map((line) => `  ${line}`).join('\n')}`);
  }
  const dataDir = resolve(e.ATELIER_DATA_DIR);
  const databaseUrl = e.ATELIER_DATABASE_URL ?? resolve(dataDir, 'atelier.db');
  return {
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    dataDir,
    databaseUrl,
    storage,
    blobDir: resolve(dataDir, 'blobs'),
    filesRedirect: e.ATELIER_FILES_REDIRECT === 'true',
    retentionDays: { results: e.ATELIER_RETENTION_RESULTS_DAYS, uploads: e.ATELIER_RETENTION_UPLOADS_DAYS },
    metricsToken: e.ATELIER_METRICS_TOKEN,
    tracing: tracingConfigOf(env),
    publicBaseUrl: (e.ATELIER_PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    uploadAllowedHosts: e.ATELIER_UPLOAD_ALLOWED_HOSTS,
    catalogPath: e.ATELIER_CATALOG,
    policyPath: e.ATELIER_POLICY_FILE,
    configRefreshMs: e.ATELIER_CONFIG_REFRESH_MS,
    masterKey: e.ATELIER_MASTER_KEY,
    roles: { api: e.ATELIER_ROLES.includes('api'), worker: e.ATELIER_ROLES.includes('worker') },
    localLatencyMs: e.ATELIER_LOCAL_LATENCY_MS,
    taskDeadlineMs: e.ATELIER_TASK_DEADLINE_MS,
    openAiWaitMs: e.ATELIER_OPENAI_WAIT_MS,
    mcpConfirmTimeoutMs: e.ATELIER_MCP_CONFIRM_TIMEOUT_MS,
    workerConcurrency: e.ATELIER_WORKER_CONCURRENCY,
    submitMaxAttempts: e.ATELIER_SUBMIT_MAX_ATTEMPTS,
    upstreamTimeoutMs: e.ATELIER_UPSTREAM_TIMEOUT_MS,
    webhookRetryScheduleMs: e.ATELIER_WEBHOOK_RETRY_SCHEDULE_MS ?? [...DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS],
    providers: {
      gemini: { apiKey: e.ATELIER_GEMINI_API_KEY, baseUrl: e.ATELIER_GEMINI_BASE_URL },
      openai: { apiKey: e.ATELIER_OPENAI_API_KEY, baseUrl: e.ATELIER_OPENAI_BASE_URL },
      replicate: { apiKey: e.ATELIER_REPLICATE_API_TOKEN, baseUrl: e.ATELIER_REPLICATE_BASE_URL },
      fal: { apiKey: e.ATELIER_FAL_API_KEY, baseUrl: e.ATELIER_FAL_BASE_URL },
      comfyui: { urls: e.ATELIER_COMFYUI_URL, maxQueue: e.ATELIER_COMFYUI_MAX_QUEUE },
    },
    readEnv: (name) => env[name]?.trim() || undefined,
    createDemoAccount: e.ATELIER_DEMO_ACCOUNT === 'true',
    stageTiming: e.ATELIER_STAGE_TIMING === '1',
    trustProxy: e.ATELIER_TRUST_PROXY.value,
    warnings: e.ATELIER_TRUST_PROXY.warning ? [e.ATELIER_TRUST_PROXY.warning] : [],
    requestTimeouts: {
      bodyIdleMs: e.ATELIER_BODY_IDLE_TIMEOUT_MS,
      bodyDeadlineMs: e.ATELIER_BODY_DEADLINE_MS,
      uploadDeadlineMs: e.ATELIER_UPLOAD_DEADLINE_MS,
    },
    resourceCaps: {
      renditions: { concurrency: e.ATELIER_RENDITION_CONCURRENCY, queue: e.ATELIER_RENDITION_QUEUE },
      searches: { concurrency: e.ATELIER_SEARCH_CONCURRENCY, queue: e.ATELIER_SEARCH_QUEUE },
      passwordHashes: {
        concurrency: e.ATELIER_PASSWORD_HASH_CONCURRENCY,
        queue: e.ATELIER_PASSWORD_HASH_QUEUE,
      },
      streams: { perAccount: e.ATELIER_STREAMS_PER_ACCOUNT, perAddress: e.ATELIER_STREAMS_PER_ADDRESS },
      uploadsPerDay: { count: e.ATELIER_UPLOADS_PER_DAY, bytes: e.ATELIER_UPLOAD_BYTES_PER_DAY },
      idempotencyKeysPerAccount: e.ATELIER_IDEMPOTENCY_KEYS_PER_ACCOUNT,
    },
  };
}

/** Loads `.env` from the working directory into process.env (existing variables win). */
export function loadDotEnv(path = '.env'): void {
  try {
    process.loadEnvFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
