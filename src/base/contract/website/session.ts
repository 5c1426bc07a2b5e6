/**
 * The website's sign-in, session state and password changes (the sign-in page of the /web/api
 * contract): who is signed in, and whether the session must first replace a password an operator set.
 */
import { z } from 'zod';
import { TIERS } from '../../domain/tiers.js';
import { fieldError } from '../field-error.js';

export const signInBodySchema = z
  .looseObject({
    email: z.string({ error: fieldError('must be a string') }).max(254, 'is too long'),
    password: z.string({ error: fieldError('must be a string') }).max(1024, 'is too long'),
    remember: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe(
        '"Keep me signed in": a cookie that outlives the browser, for at most 30 days (7 days unused); otherwise a browser-session cookie, for at most 12 hours (1 hour unused)',
      ),
  })
  .describe('Sign-in');

const passwordField = z.string({ error: fieldError('must be a string') }).max(1024, 'is too long');

export const changePasswordBodySchema = z
  .looseObject({
    current_password: passwordField.describe(
      "The password the account has now (after an operator's reset, the one it set)",
    ),
    new_password: passwordField.min(8, 'must be at least 8 characters').describe('The new password'),
  })
  .describe('A password change');

export const confirmPasswordBodySchema = z
  .looseObject({ password: passwordField.describe("The account's password, asked again") })
  .describe('The password, asked again before a sensitive change');

/** Whether the signed-in account is an operator: the website shows its admin area then (issue 31). */
const operatorField = z
  .boolean()
  .describe('An operator: the website shows the operator console (its API is /api/admin/v1)');

/** After an operator's reset the session can only set a new password (the website asks for one first). */
const passwordChangeRequiredField = z
  .boolean()
  .describe(
    'The password is one an operator set: until a new one is set (POST /web/api/account/password) every other route refuses this session with 403 password_change_required',
  );

export const sessionInfoSchema = z
  .object({
    email: z.string(),
    tier: z.enum(TIERS),
    operator: operatorField,
    passwordChangeRequired: passwordChangeRequiredField,
  })
  .describe('The signed-in account');

/**
 * GET /web/api/session: whether this browser is signed in. Not being signed in is an answer, not an
 * error (a 401 would log a console error on every signed-out page load).
 */
export const sessionStateSchema = z
  .discriminatedUnion('signedIn', [
    z.object({
      signedIn: z.literal(true),
      email: z.string(),
      tier: z.enum(TIERS),
      operator: operatorField,
      passwordChangeRequired: passwordChangeRequiredField,
    }),
    z.object({ signedIn: z.literal(false) }),
  ])
  .describe('The session state');

export type SessionInfo = z.infer<typeof sessionInfoSchema>;
export type SessionState = z.infer<typeof sessionStateSchema>;
