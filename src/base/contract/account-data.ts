/**
 * The wire shapes of an account's export and erase (issue 47): the website's account page
 * (`/web/api/account/export`, `/web/api/account/erase`) and the operator console's API
 * (`/api/admin/v1/accounts/{id}/export`, `/api/admin/v1/accounts/{id}/erase`).
 */
import { z } from 'zod';
import { fieldError } from './field-error.js';
import { emailField } from './formats.js';

const confirmField = emailField().describe(
  "The account's e-mail, typed again: the erase goes ahead only when it matches",
);

/** The operator's erase: the account named again. */
export const adminEraseBodySchema = z
  .object({ confirm: confirmField })
  .describe('Erase the account: its e-mail, typed again');

/** The account holder's own erase: the e-mail typed again and the password. */
export const accountEraseBodySchema = z
  .object({
    confirm: confirmField,
    password: z
      .string({ error: fieldError('must be a string') })
      .max(1024, 'is too long')
      .describe("The account's password"),
  })
  .describe('Erase this account: its e-mail typed again and the password');

export const eraseOutcomeSchema = z
  .object({
    status: z
      .enum(['erased', 'pending'])
      .describe(
        'erased: no row of the account remains (its files leave storage at the next lifecycle run); pending: a task of it was still running, and the lifecycle housekeeping finishes the erase',
      ),
  })
  .describe('What the erase did');

export const exportZipResponse = {
  description:
    "A ZIP archive, streamed as it is written: every result of the account's works (works/) and every upload (uploads/), stored as they are, then metadata.json (the account, and each file with its prompt, model and settings)",
  content: { 'application/zip': { schema: z.string().meta({ contentMediaType: 'application/zip' }) } },
};

/** What a confirmation that does not name the account is told (400, field `confirm`). */
export const CONFIRM_MISMATCH = "confirm must be the account's e-mail";
