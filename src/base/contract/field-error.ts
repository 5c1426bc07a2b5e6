/**
 * A field error for a Zod schema: "is required" when absent, else `message`. Schemas give field
 * errors as predicates, so a refusal reads "count must be an integer" (src/edges/http/validation.ts).
 */
export const fieldError = (message: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'is required' : message;
