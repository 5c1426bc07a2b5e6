import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { OpenAPIV3_1 } from 'openapi-types';
import { ADMIN_TAG } from '../../base/contract/admin.js';
import { GEMINI_TAG, GOOGLE_API_KEY_SCHEME } from '../../base/contract/gemini.js';
import { OAUTH_TAG } from '../../base/contract/oauth-wire.js';
import { OPENAI_TAG } from '../../base/contract/openai.js';
import { webhookPayloadSchema } from '../../base/contract/webhooks.js';
import {
  WEBSITE_SESSION_SCHEME,
  WEBSITE_TAG,
  websiteSessionSecurityScheme,
} from '../../base/contract/website/shared.js';

export type OpenApiDocument = OpenAPIV3_1.Document;

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];
type MediaTypes = Record<string, { schema: unknown }>;
/**
 * `documentedOnlyBodies`: media types a route accepts as streams it reads itself (direct
 * uploads), which Fastify must not validate but the document must list.
 */
type RouteSchema = Record<string, unknown> & { body?: unknown; documentedOnlyBodies?: MediaTypes };

/** A body declared per media type (`{ content: { type: { schema } } }`), as Fastify validates it. */
function isPerMediaType(body: unknown): body is { content: MediaTypes } {
  return typeof body === 'object' && body !== null && 'content' in body;
}

/**
 * The route's schemas as JSON Schema (fastify-type-provider-zod's transform), extended to bodies
 * declared per media type, which it does not convert: each media type's Zod schema goes through
 * the same transform, so named schemas still become `$ref`s.
 */
function transformRoute(input: TransformInput) {
  const converted = convertRoute(input);
  if (!input.url.endsWith('/*')) return converted;
  // OpenAPI has no wildcard path: `/files/*` is documented as `/files/{key}`.
  const params = (converted.schema as { params?: { properties?: Record<string, unknown> } }).params;
  const wildcard = params?.properties?.['*'];
  return {
    schema: {
      ...converted.schema,
      params: { type: 'object', properties: { key: wildcard ?? { type: 'string' } }, required: ['key'] },
    },
    url: `${input.url.slice(0, -1)}{key}`,
  };
}

function convertRoute(input: TransformInput) {
  const schema = input.schema as RouteSchema | undefined;
  if (!schema || (!isPerMediaType(schema.body) && !schema.documentedOnlyBodies))
    return jsonSchemaTransform(input);
  const { body = { content: {} }, documentedOnlyBodies, ...rest } = schema;
  const transformed = jsonSchemaTransform({ ...input, schema: rest } as TransformInput);
  const content = Object.fromEntries(
    Object.entries({ ...(isPerMediaType(body) ? body.content : {}), ...documentedOnlyBodies }).map(
      ([mediaType, { schema: media }]) => {
        const converted = jsonSchemaTransform({ ...input, schema: { body: media } } as TransformInput);
        return [mediaType, { schema: (converted.schema as { body: unknown }).body }];
      },
    ),
  );
  return { ...transformed, schema: { ...transformed.schema, body: { content } } };
}

/** The calls Atelier makes to a generate request's callbackUrl (OpenAPI 3.1 `webhooks`). */
const callbackWebhooks = {
  taskEnded: {
    post: {
      operationId: 'taskEnded',
      summary: 'A task ended (sent to the callbackUrl of its generate request)',
      description:
        "Signed per Standard Webhooks with the account's secret (GET /api/v1/user/webhook-secret): headers webhook-id (the same on every attempt), webhook-timestamp and webhook-signature. Any 2xx answer is success; anything else is retried along the schedule.",
      tags: ['Webhooks'],
      security: [],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { $ref: `#/components/schemas/${webhookPayloadSchema.meta()?.id}` } },
        },
      },
      responses: { '200': { description: 'Received (any 2xx)' } },
    },
  },
};

/**
 * Registers @fastify/swagger: `/api/v1/openapi.json` is generated from the route schemas (params,
 * query, headers, bodies and every declared answer), and the named contract schemas
 * (`.meta({ id })`) become `components.schemas`. Request forms are named `…Input`.
 */
export async function registerOpenApiDocument(app: FastifyInstance, { serverUrl }: { serverUrl: string }) {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Atelier API',
        version: '1',
        description:
          'Image-generation gateway. Every error body is {"error":{"type","message"}}, except on the OpenAI- and Gemini-compatible routes (their own shapes) and OAuth\'s routes (tag OAuth: {"error","error_description"}, RFC 6749 §5.2). Authenticate with Authorization: Bearer <API_KEY>.',
      },
      servers: [{ url: serverUrl }],
      webhooks: callbackWebhooks,
      // An API key, or the signed-in website's session (same-origin; /api/v1 and OpenAI's routes
      // take both). Routes that take something else say so (Gemini's key headers, the website's
      // session alone, public routes none).
      security: [{ bearer: [] }, { [WEBSITE_SESSION_SCHEME]: [] }],
      tags: [
        {
          name: OPENAI_TAG,
          description:
            "OpenAI's Images API on /v1 (POST /v1/images/generations, POST /v1/images/edits, GET /v1/models) for tools that speak only OpenAI: same keys, catalog, history and library; errors in OpenAI's shape { error: { message, type, param, code } }. See docs/openai-compat.md.",
        },
        {
          name: GEMINI_TAG,
          description:
            "Google's Gemini API on /v1beta (POST /v1beta/models/{model}:generateContent and :streamGenerateContent, GET /v1beta/models) for apps written for @google/genai: the key in x-goog-api-key or Authorization: Bearer; same catalog, history and library; errors in Google's shape { error: { code, message, status, details } }. See docs/gemini-compat.md.",
        },
        {
          name: ADMIN_TAG,
          description:
            "The operator console's API (/api/admin/v1): accounts, their keys and passwords, usage of every account, the tier policies in force, the upstreams' live state. An operator's API key (Bearer) or an operator's website session (state-changing requests from the site's own origin); any other account is 403 forbidden. See docs/admin-api.md.",
        },
        {
          name: OAUTH_TAG,
          description:
            "Sign-in for hosted MCP clients (docs/mcp.md): dynamic client registration (RFC 7591), authorization with PKCE S256, tokens with single-use refresh (RFC 6749), revocation (RFC 7009) and the metadata documents (RFC 8414, RFC 9728). Served only where the public base URL can be an issuer (https, or loopback). Answers and errors are OAuth's own: { error, error_description }, not Atelier's shape, as OAuth clients expect.",
        },
        {
          name: WEBSITE_TAG,
          description:
            "The website's own API (/web/api), same-origin with its session cookie. Documented for completeness; integrations use /api/v1.",
        },
      ],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'The account API key (atl_…)' },
          [GOOGLE_API_KEY_SCHEME]: {
            type: 'apiKey',
            in: 'header',
            name: 'x-goog-api-key',
            description:
              'The account API key (atl_…), as Google’s clients send it (the Gemini-native routes only)',
          },
          [WEBSITE_SESSION_SCHEME]: websiteSessionSecurityScheme,
        },
      },
    },
    transform: transformRoute,
    transformObject: (input) => tidyComponents(jsonSchemaTransformObject(input) as OpenApiDocument),
  });
}

const COMPONENT = '#/components/schemas/';

/** The component names `value` refers to (`$ref`s), anywhere inside it. */
function referencedNames(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) referencedNames(item, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(COMPONENT))
        into.add(child.slice(COMPONENT.length));
      else referencedNames(child, into);
    }
  }
  return into;
}

/**
 * Every named schema is generated twice (its input form as `…Input`); keeps only the forms the
 * operations use, and names a request schema used only as input by its own name (GenerateRequest,
 * not GenerateRequestInput), so the document reads like its contract.
 */
function tidyComponents(document: OpenApiDocument): OpenApiDocument {
  const schemas = document.components?.schemas ?? {};
  const used = referencedNames([document.paths, document.webhooks]);
  for (let grew = true; grew; ) {
    const before = used.size;
    for (const name of [...used]) referencedNames(schemas[name], used);
    grew = used.size > before;
  }
  const renames = new Map(
    [...used]
      .filter((name) => name.endsWith('Input') && !used.has(name.slice(0, -'Input'.length)))
      .map((name) => [name, name.slice(0, -'Input'.length)]),
  );
  const kept = Object.fromEntries(
    Object.entries(schemas)
      .filter(([name]) => used.has(name))
      .map(([name, schema]) => [renames.get(name) ?? name, schema]),
  );
  let text = JSON.stringify({ ...document, components: { ...document.components, schemas: kept } });
  for (const [from, to] of renames) text = text.replaceAll(`"${COMPONENT}${from}"`, `"${COMPONENT}${to}"`);
  return JSON.parse(text) as OpenApiDocument;
}
