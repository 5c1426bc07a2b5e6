// The website's routes (src/web/routes.ts, being reworked on another branch) still import hasKey
// from here; GET /user/status itself lives in src/http/routes/user-status.ts. Drop at merge.
export { hasKey } from './has-key.js';
