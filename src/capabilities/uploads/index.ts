// The uploads capability's face: everything other folders may use from it, and nothing else.
// Files outside src/capabilities/uploads/ import from this file only (src/architecture.test.ts holds it).
export { UPLOAD_NAMING_KEY_LABEL } from './content-names.js';
export type { MultipartLimits } from './multipart-limits.js';
export { refuseOverLimitForm, UPLOAD_FORM_LIMITS } from './multipart-limits.js';
export { MAX_UPLOAD_BYTES, writeStreamToTempFile } from './temp-file.js';
export { createUploadQuota } from './upload-quota.js';
export type { UploadsService } from './uploads-service.js';
export { createUploadsService } from './uploads-service.js';
