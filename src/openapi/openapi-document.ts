import { z } from 'zod';
import { generateBodySchema } from '../generations/generate-body-schema.js';
import { MAX_HISTORY_LIMIT } from '../generations/routes.js';
import { type ErrorType, errorStatus } from '../http/errors.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../idempotency/idempotency-hooks.js';
import { MAX_BATCH_IDS, MAX_WAIT_SECONDS } from '../tasks/routes.js';
import { MAX_UPLOAD_BYTES } from '../uploads/temp-file.js';
import { uploadBodySchema } from '../uploads/upload-body-schema.js';
import {
  accountStatusSchema,
  assetsPageSchema,
  errorBodySchema,
  generateResponseSchema,
  historyPageSchema,
  modelsSchema,
  taskRecordSchema,
  tasksResponseSchema,
  uploadResultSchema,
  webhookDeliveriesPageSchema,
  webhookDeliverySchema,
  webhookSecretSchema,
} from './response-schemas.js';

type JsonSchema = Record<string, unknown>;

/** Named schemas that become `components.schemas`, generated from the Zod schemas in use. */
const namedSchemas: Record<string, z.ZodType> = {
  GenerateRequest: generateBodySchema,
  UploadRequest: uploadBodySchema,
  GenerateResponse: generateResponseSchema,
  TaskRecord: taskRecordSchema,
  TaskBatch: tasksResponseSchema,
  UploadResult: uploadResultSchema,
  HistoryPage: historyPageSchema,
  AccountStatus: accountStatusSchema,
  AssetsPage: assetsPageSchema,
  Models: modelsSchema,
  WebhookSecret: webhookSecretSchema,
  WebhookDeliveries: webhookDeliveriesPageSchema,
  WebhookDelivery: webhookDeliverySchema,
  Error: errorBodySchema,
};

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

const ref = (name: keyof typeof namedSchemas) => ({ $ref: `#/components/schemas/${name}` });

interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description: string;
  schema: JsonSchema;
}

interface Endpoint {
  method: 'get' | 'post';
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  parameters?: Parameter[];
  requestBody?: Record<string, unknown>;
  success: { description: string; content: Record<string, unknown> };
  errors: ErrorType[];
}

const json = (name: keyof typeof namedSchemas) => ({ 'application/json': { schema: ref(name) } });
const pageParams = (maxLimit: number): Parameter[] => [
  {
    name: 'page',
    in: 'query',
    description: '1-based page; default 1',
    schema: { type: 'integer', minimum: 1, default: 1 },
  },
  {
    name: 'limit',
    in: 'query',
    description: `Page size; default 20, at most ${maxLimit}`,
    schema: { type: 'integer', minimum: 1, maximum: maxLimit, default: 20 },
  },
];
const idsParam: Parameter = {
  name: 'ids',
  in: 'query',
  required: true,
  description: `Comma-separated task ids, 1 to ${MAX_BATCH_IDS} after trimming and dropping empty entries`,
  schema: { type: 'string' },
};
const waitParam: Parameter = {
  name: 'wait',
  in: 'query',
  description: `Long-poll: wait up to this many seconds for a change of an unfinished task (0–${MAX_WAIT_SECONDS}; default 0)`,
  schema: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SECONDS, default: 0 },
};
const taskIdParam: Parameter = {
  name: 'task_id',
  in: 'path',
  required: true,
  description: 'Task id',
  schema: { type: 'string' },
};
const idempotencyParam: Parameter = {
  name: 'Idempotency-Key',
  in: 'header',
  description: `Up to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, per account, kept 24 h: a repeat with the same body replays the first response (header Idempotent-Replayed: true) and submits nothing`,
  schema: { type: 'string', maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
};

/** Every /api/v1 operation. The request and response schemas are the ones the server uses. */
const endpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/api/v1/generate',
    operationId: 'generate',
    summary: 'Create generation tasks',
    description:
      'Validates against the catalog, writes one task per image and submits them; answers at once with the task ids.',
    tag: 'Generation',
    parameters: [idempotencyParam],
    requestBody: { required: true, content: { 'application/json': { schema: ref('GenerateRequest') } } },
    success: { description: 'Tasks created', content: json('GenerateResponse') },
    errors: [
      'invalid_request',
      'upstream_key_missing',
      'unauthorized',
      'invalid_api_key',
      'idempotency_in_progress',
      'request_timeout',
      'payload_too_large',
      'idempotency_mismatch',
      'upstream_error',
      'fetch_failed',
    ],
  },
  {
    method: 'get',
    path: '/api/v1/tasks/{task_id}',
    operationId: 'getTask',
    summary: 'Get one task',
    description:
      'Reads the store (never the upstream). Poll every 2–5 s, or use `wait` or the event stream. Also served at /v1/tasks/{task_id}.',
    tag: 'Tasks',
    parameters: [taskIdParam, waitParam],
    success: { description: 'The task record', content: json('TaskRecord') },
    errors: ['invalid_request', 'unauthorized', 'invalid_api_key', 'not_found'],
  },
  {
    method: 'get',
    path: '/api/v1/tasks',
    operationId: 'getTasks',
    summary: 'Get up to 20 tasks',
    description: 'Unknown ids, and ids of other accounts, are answered in place as failed "Task not found".',
    tag: 'Tasks',
    parameters: [idsParam, waitParam],
    success: { description: 'Records in input order', content: json('TaskBatch') },
    errors: ['invalid_request', 'unauthorized', 'invalid_api_key'],
  },
  {
    method: 'get',
    path: '/api/v1/tasks/events',
    operationId: 'streamTasks',
    summary: 'Stream task changes (Server-Sent Events)',
    description:
      'Sends `event: task` with the current record of each id, then one per change (in order), and `event: end` once every task is final.',
    tag: 'Tasks',
    parameters: [idsParam],
    success: {
      description: 'An event stream of task records',
      content: { 'text/event-stream': { schema: { type: 'string' }, itemSchema: ref('TaskRecord') } },
    },
    errors: ['invalid_request', 'unauthorized', 'invalid_api_key'],
  },
  {
    method: 'post',
    path: '/api/v1/tasks/{task_id}/cancel',
    operationId: 'cancelTask',
    summary: 'Cancel a task',
    description:
      'An unfinished task ends failed with error "Canceled" (repeating the call answers the same); a finished one is 409.',
    tag: 'Tasks',
    parameters: [taskIdParam],
    success: { description: 'The canceled task', content: json('TaskRecord') },
    errors: ['unauthorized', 'invalid_api_key', 'not_found', 'conflict'],
  },
  {
    method: 'post',
    path: '/api/v1/upload',
    operationId: 'upload',
    summary: 'Upload a reference image',
    description: `By URL (JSON) — fetched safely and re-hosted — or directly, as multipart field "file" or a raw image body. At most ${MAX_UPLOAD_BYTES / 1024 / 1024} MB; png, jpeg, webp, gif or bmp by magic bytes; at most 100 megapixels.`,
    tag: 'Uploads',
    parameters: [idempotencyParam],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: ref('UploadRequest') },
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } },
            required: ['file'],
          },
        },
        'image/*': { schema: { type: 'string', contentMediaType: 'image/*' } },
      },
    },
    success: { description: 'The stored image', content: json('UploadResult') },
    errors: [
      'invalid_request',
      'unauthorized',
      'invalid_api_key',
      'request_timeout',
      'payload_too_large',
      'unsupported_media_type',
      'invalid_image',
      'fetch_failed',
    ],
  },
  {
    method: 'get',
    path: '/api/v1/history',
    operationId: 'history',
    summary: 'List generations, newest first',
    tag: 'History',
    parameters: pageParams(MAX_HISTORY_LIMIT),
    success: { description: 'A page of generations', content: json('HistoryPage') },
    errors: ['invalid_request', 'unauthorized', 'invalid_api_key'],
  },
  {
    method: 'get',
    path: '/api/v1/user/status',
    operationId: 'userStatus',
    summary: 'Account status',
    tag: 'Account',
    success: { description: 'The account', content: json('AccountStatus') },
    errors: ['unauthorized', 'invalid_api_key'],
  },
  {
    method: 'get',
    path: '/api/v1/assets',
    operationId: 'assets',
    summary: 'List the asset library (uploads and results)',
    tag: 'Assets',
    parameters: [
      ...pageParams(50),
      {
        name: 'kind',
        in: 'query',
        description: 'Only uploads or only results',
        schema: { type: 'string', enum: ['upload', 'result'] },
      },
    ],
    success: { description: 'A page of assets', content: json('AssetsPage') },
    errors: ['invalid_request', 'unauthorized', 'invalid_api_key'],
  },
  {
    method: 'get',
    path: '/api/v1/models',
    operationId: 'models',
    summary: 'The model catalog',
    tag: 'Models',
    success: { description: 'Models with their modes, aspects, sizes and caps', content: json('Models') },
    errors: ['unauthorized', 'invalid_api_key'],
  },
  {
    method: 'get',
    path: '/api/v1/user/webhook-secret',
    operationId: 'webhookSecret',
    summary: "The account's webhook signing secret",
    description:
      'Deliveries to a generate request\'s callbackUrl are signed per Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">.',
    tag: 'Webhooks',
    success: { description: 'The secret (created on first read)', content: json('WebhookSecret') },
    errors: ['unauthorized', 'invalid_api_key'],
  },
  {
    method: 'get',
    path: '/api/v1/webhooks/deliveries',
    operationId: 'webhookDeliveries',
    summary: 'List webhook deliveries, newest first',
    tag: 'Webhooks',
    parameters: pageParams(50),
    success: { description: 'A page of deliveries', content: json('WebhookDeliveries') },
    errors: ['invalid_request', 'unauthorized', 'invalid_api_key'],
  },
  {
    method: 'post',
    path: '/api/v1/webhooks/deliveries/{id}/redeliver',
    operationId: 'redeliverWebhook',
    summary: 'Send a delivery again (a new series of attempts, same webhook-id)',
    tag: 'Webhooks',
    parameters: [
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'Delivery id (msg_…)',
        schema: { type: 'string' },
      },
    ],
    success: { description: 'The delivery, due now', content: json('WebhookDelivery') },
    errors: ['unauthorized', 'invalid_api_key', 'not_found', 'conflict'],
  },
];

/** Extra operations other capabilities add (e.g. webhooks), in the same form. */
export type OpenApiEndpoint = Endpoint;

/** Builds the OpenAPI 3.1 document of /api/v1 from the schemas the server validates with. */
export function buildOpenApiDocument(options: { serverUrl: string; extraEndpoints?: Endpoint[] }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of [...endpoints, ...(options.extraEndpoints ?? [])]) {
    const responses: Record<string, unknown> = { '200': endpoint.success };
    const byStatus = new Map<number, ErrorType[]>();
    for (const type of endpoint.errors)
      byStatus.set(errorStatus[type], [...(byStatus.get(errorStatus[type]) ?? []), type]);
    byStatus.set(500, [...new Set([...(byStatus.get(500) ?? []), 'internal_error' as const])]);
    for (const [status, types] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
      responses[String(status)] = { description: `error.type: ${types.join(', ')}`, content: json('Error') };
    }
    paths[endpoint.path] = {
      ...paths[endpoint.path],
      [endpoint.method]: {
        operationId: endpoint.operationId,
        summary: endpoint.summary,
        ...(endpoint.description ? { description: endpoint.description } : {}),
        tags: [endpoint.tag],
        ...(endpoint.parameters ? { parameters: endpoint.parameters } : {}),
        ...(endpoint.requestBody ? { requestBody: endpoint.requestBody } : {}),
        responses,
      },
    };
  }
  const schemas = Object.fromEntries(
    Object.entries(namedSchemas).map(([name, schema]) => [
      name,
      toSchema(schema, name.endsWith('Request') ? 'input' : 'output'),
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Atelier API',
      version: '1',
      description:
        'Image-generation gateway. Every error body is {"error":{"type","message"}}. Authenticate with Authorization: Bearer <API_KEY>.',
    },
    servers: [{ url: options.serverUrl }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'The account API key (atl_…)' },
      },
      schemas,
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
