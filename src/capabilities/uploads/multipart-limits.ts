import { InvalidInput } from '../../base/domain/errors.js';

/** How many parts a multipart form may carry (busboy's limits, as @fastify/multipart takes them). */
export interface MultipartLimits {
  files: number;
  fields: number;
  parts: number;
}

/** POST /api/v1/upload: one `file` part, and a few text fields a form tool may add. */
export const UPLOAD_FORM_LIMITS: MultipartLimits = { files: 1, fields: 5, parts: 6 };

/**
 * A form over one of its part limits is the caller's mistake, answered 400 naming the limit
 * (@fastify/multipart raises it as a 413, which told a caller with a body of a few hundred bytes
 * that it was too large). Anything else is returned as it came.
 */
export function refuseOverLimitForm(error: unknown, limits: MultipartLimits, field?: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const over = (count: number, what: string) =>
    new InvalidInput(`The form has more than ${count} ${what}; at most ${count} are read`, field);
  switch (code) {
    case 'FST_FILES_LIMIT':
      return over(limits.files, limits.files === 1 ? 'file part' : 'file parts');
    case 'FST_FIELDS_LIMIT':
      return over(limits.fields, 'text fields');
    case 'FST_PARTS_LIMIT':
      return over(limits.parts, 'parts');
    default:
      return error;
  }
}
