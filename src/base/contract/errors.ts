import { z } from 'zod';

/** The body of every error answer: `{ error: { type, message } }` (the closed list of types is in src/edges/http/errors.ts). */
export const errorBodySchema = z
  .object({
    error: z.object({
      type: z.string().describe('Machine-readable error type, e.g. invalid_request'),
      message: z.string().describe('Human-readable explanation'),
    }),
  })
  .meta({
    id: 'Error',
    description: 'Error',
    examples: [{ error: { type: 'not_found', message: 'Task not found' } }],
  });

export type ErrorBody = z.output<typeof errorBodySchema>;
