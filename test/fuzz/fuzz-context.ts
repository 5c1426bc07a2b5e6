/** The app under the HTTP fuzzer: its routes, what the fuzzer knows of it, and one request. */
/** Every route of the app, as Fastify paths; the /api/v1 ones are also served under /v1. */
export const V1_ROUTES = [
  'POST /generate',
  'POST /quotes',
  'GET /tasks/:id',
  'GET /tasks',
  'GET /tasks/events',
  'POST /tasks/:id/cancel',
  'POST /upload',
  'GET /history',
  'GET /history/:id/versions',
  'POST /generations/:id/actions',
  'GET /user/status',
  'GET /user/usage',
  'GET /assets',
  'DELETE /assets/:id',
  'GET /models',
  'GET /models/:id',
  'GET /user/webhook-secret',
  'POST /user/webhook-secret/rotate',
  'GET /webhooks/deliveries',
  'POST /webhooks/deliveries/:id/redeliver',
  // Stars, collections and the ZIP (issue 30); a collection item's two ids are both `:id` here.
  'PUT /generations/:id/star',
  'GET /collections',
  'PATCH /collections/:id',
  'PUT /collections/:id/items/:id',
  'GET /downloads/zip',
  'POST /downloads/zip',
];
/** The OpenAI-compatible routes (their errors are in OpenAI's shape). */
export const OPENAI_ROUTES = [
  'GET /v1/models',
  'GET /v1/models/:id',
  'POST /v1/images/generations',
  'POST /v1/images/edits',
  'POST /v1/chat/completions',
  'GET /v1/images/generations/:id',
  'GET /v1/images/edits/:id',
  'POST /v1/responses',
  'GET /v1/responses/:id',
  'DELETE /v1/responses/:id',
];
/** The Gemini-native routes (their errors are in Google's shape). */
export const GEMINI_ROUTES = [
  'GET /v1beta/models',
  'GET /v1beta/models/:id',
  'POST /v1beta/models/:id:generateContent',
  'POST /v1beta/models/:id:streamGenerateContent',
];
/** Sign-in for hosted MCP clients: OAuth's routes (their errors are OAuth's `{ error, error_description }`). */
export const OAUTH_ROUTES = [
  'GET /authorize',
  'POST /authorize',
  'POST /token',
  'POST /register',
  'POST /revoke',
  'GET /.well-known/oauth-authorization-server',
  'GET /.well-known/oauth-protected-resource',
  'GET /.well-known/oauth-protected-resource/mcp',
];
export const OTHER_ROUTES = [
  // MCP's discovery document and the icon it names (docs/mcp.md), open to anyone.
  'GET /.well-known/mcp/server.json',
  'GET /mcp/icon.svg',
  'POST /web/api/session',
  'DELETE /web/api/session',
  'GET /web/api/session',
  'DELETE /web/api/sessions',
  'POST /web/api/account/password',
  'GET /web/api/account/export',
  'POST /web/api/account/erase',
  'POST /web/api/generate',
  'GET /web/api/tasks/pending',
  'POST /web/api/tasks/cleared',
  'GET /web/api/tasks/estimates',
  'GET /web/api/tasks/:id/preview',
  'GET /web/api/prompts',
  'GET /web/api/presets',
  'PUT /web/api/presets/:id',
  'DELETE /web/api/presets/:id',
  'GET /web/api/works',
  'DELETE /web/api/works/:id',
  'GET /web/api/assets',
  'GET /web/api/account',
  'GET /web/api/account/usage',
  'PUT /web/api/account/spend-confirmation',
  'PUT /web/api/account/upstream-keys/:id',
  'DELETE /web/api/account/upstream-keys/:id',
  'POST /web/api/account/api-key',
  'GET /web/api/account/keys',
  'POST /web/api/account/keys',
  'DELETE /web/api/account/keys/:id',
  'PUT /web/api/account/keys/:id/retention',
  'GET /web/api/account/oauth-grants',
  'DELETE /web/api/account/oauth-grants/:id',
  'GET /web/api/oauth/authorizations/:id',
  'POST /web/api/oauth/authorizations/:id',
  'GET /web/api/works/:id',
  'GET /web/api/works/:id/versions',
  'POST /web/api/works/:id/actions',
  'PUT /web/api/works/:id/star',
  'DELETE /web/api/works/:id/star',
  'GET /web/api/collections',
  'POST /web/api/collections',
  'PATCH /web/api/collections/:id',
  'DELETE /web/api/collections/:id',
  'PUT /web/api/collections/:id/items/:id',
  'DELETE /web/api/collections/:id/items/:id',
  'GET /web/api/smart-collections',
  'POST /web/api/smart-collections',
  'PATCH /web/api/smart-collections/:id',
  'DELETE /web/api/smart-collections/:id',
  'GET /web/api/downloads/zip',
  'POST /web/api/downloads/zip',
  'DELETE /web/api/assets/:id',
  // The operator console's API (issue 31): the fuzzer's account is no operator, so these answer 401/403.
  'GET /api/admin/v1/accounts',
  'POST /api/admin/v1/accounts',
  'GET /api/admin/v1/accounts/:id',
  'PATCH /api/admin/v1/accounts/:id',
  'POST /api/admin/v1/accounts/:id/password',
  'PUT /api/admin/v1/accounts/:id/budget',
  'PUT /api/admin/v1/accounts/:id/retention',
  'GET /api/admin/v1/accounts/:id/export',
  'POST /api/admin/v1/accounts/:id/erase',
  'GET /api/admin/v1/accounts/:id/usage',
  'GET /api/admin/v1/accounts/:id/keys',
  'POST /api/admin/v1/accounts/:id/keys',
  'DELETE /api/admin/v1/accounts/:id/keys/:id',
  'PUT /api/admin/v1/accounts/:id/keys/:id/budget',
  'PUT /api/admin/v1/accounts/:id/keys/:id/retention',
  'GET /api/admin/v1/usage',
  'GET /api/admin/v1/policies',
  'PUT /api/admin/v1/policies',
  'PATCH /api/admin/v1/policies/tiers/:id',
  'GET /api/admin/v1/policies/versions',
  'GET /api/admin/v1/upstreams',
  'GET /api/admin/v1/provider-keys',
  'POST /api/admin/v1/provider-keys',
  'PATCH /api/admin/v1/provider-keys/:id/:id',
  'DELETE /api/admin/v1/provider-keys/:id/:id',
  'GET /api/admin/v1/tasks',
  'GET /api/admin/v1/tasks/:id',
  'GET /api/admin/v1/audit',
  'GET /api/admin/v1/audit/export',
  'GET /api/admin/v1/queue',
  'POST /api/admin/v1/queue/cancel',
  'GET /api/admin/v1/alerts',
  'POST /api/admin/v1/alerts',
  'GET /api/admin/v1/alerts/deliveries',
  'PATCH /api/admin/v1/alerts/:id',
  'DELETE /api/admin/v1/alerts/:id',
  'POST /api/admin/v1/alerts/:id/test',
  'GET /api/admin/v1/catalog',
  'PUT /api/admin/v1/catalog',
  'PATCH /api/admin/v1/catalog/models/:id',
  'GET /api/admin/v1/catalog/versions',
  'GET /api/admin/v1/catalog/versions/:id',
  'POST /api/admin/v1/catalog/test',
  'GET /api/v1/openapi.json',
  'GET /docs',
  'GET /files/:id',
  'GET /files/uploads/:id',
  'GET /files/results/:id',
  'GET /healthz',
  'GET /',
  'GET /create',
  'GET /static/:id',
  'GET /:id',
  'GET /api/:id',
  'GET /web/api/:id',
];

/** What the fuzzer knows of the app under test: real ids and credentials, so requests get deep. */
export interface FuzzContext {
  baseUrl: string;
  apiKey: string;
  sessionCookie: () => string;
  taskIds: string[];
  fileUrls: string[];
  png: Buffer;
  /** Signs the website's account in again (after a fuzzed sign-out). */
  signIn?: () => Promise<void>;
}

export interface FuzzRequest {
  method: string;
  /** Path and query, already encoded as a client would send them. */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}
