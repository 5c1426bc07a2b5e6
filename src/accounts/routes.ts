// The website's routes (src/web/routes.ts, being reworked on another branch) still import hasKey
// from here; GET /user/status itself is served from the HTTP layer's routes folder. Drop at merge.
export { hasKey } from './has-key.js';
