/**
 * The wire shapes of the website's own API (/web/api), page by page: website/shared.ts (the tag,
 * the session cookie and scheme, paging and search), website/session.ts (sign-in, the session
 * state, password changes), website/create.ts, website/works.ts, website/library.ts and
 * website/account.ts. This file lists them all for callers outside the website's routes.
 */
// The OpenAPI document lists its shared components in the order their modules first load, and this
// file is the first to load them: the assets' schemas come first, as they always have.
import './assets.js';

/** The account page's usage chart reads the same report as GET /api/v1/user/usage. */
export { generateBodySchema } from './generate-body.js';
export { generateResponseSchema } from './generations.js';
export { usageQuerySchema, usageReportSchema } from './usage.js';
export * from './website/account.js';
export * from './website/create.js';
export * from './website/library.js';
export * from './website/session.js';
export * from './website/shared.js';
export * from './website/works.js';
