/**
 * Google's error shape, as the Gemini-native routes (`/v1beta/*`) answer it and `@google/genai`
 * reads it: `{ error: { code, message, status, details? } }`, `code` the HTTP status and `status`
 * the canonical name Google uses for it (google.rpc.Code).
 */
const CANONICAL: Record<number, readonly string[]> = {
  400: ['INVALID_ARGUMENT', 'FAILED_PRECONDITION', 'OUT_OF_RANGE'],
  401: ['UNAUTHENTICATED'],
  403: ['PERMISSION_DENIED'],
  404: ['NOT_FOUND'],
  408: ['DEADLINE_EXCEEDED'],
  409: ['ABORTED', 'ALREADY_EXISTS'],
  413: ['INVALID_ARGUMENT'],
  415: ['INVALID_ARGUMENT'],
  422: ['INVALID_ARGUMENT'],
  429: ['RESOURCE_EXHAUSTED'],
  500: ['INTERNAL'],
  502: ['INTERNAL'],
  503: ['UNAVAILABLE'],
  504: ['DEADLINE_EXCEEDED'],
};

/** True for a request path on the Gemini-native surface (every path under /v1beta answers Google's shape). */
export const isGeminiPath = (path: string): boolean => path === '/v1beta' || path.startsWith('/v1beta/');

/** What is wrong with a Gemini-native error answer, or undefined when it is Google's shape. */
export function googleProblem(
  status: number,
  parsed: object,
  body: string,
): { kind: string; detail: string } | undefined {
  const error = (parsed as { error?: Record<string, unknown> }).error;
  const keys = error ? Object.keys(error).filter((key) => key !== 'details') : [];
  if (Object.keys(parsed).join(',') !== 'error' || !error || keys.sort().join(',') !== 'code,message,status')
    return { kind: `${status} not in Google's error shape`, detail: body };
  if (error.code !== status) return { kind: `Google code ${String(error.code)} for ${status}`, detail: body };
  if (!(CANONICAL[status] ?? []).includes(String(error.status)))
    return { kind: `Google status ${String(error.status)} for ${status}`, detail: body };
  if (typeof error.message !== 'string' || error.message === '')
    return { kind: 'empty Google message', detail: body };
  if (error.details !== undefined && !Array.isArray(error.details))
    return { kind: 'Google details not a list', detail: body };
  return undefined;
}
