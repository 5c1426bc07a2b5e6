/**
 * The wire shapes of sign-in for hosted MCP clients (issue 32) on the website's API: the consent
 * page reads the authorization it asks about and sends the person's answer; the account page lists
 * the apps signed in with the account (their OAuth grants) beside the API keys, and revokes them.
 */
import { z } from 'zod';
import { fieldError } from './field-error.js';

export const oauthAuthorizationParamsSchema = z.object({
  id: z.string().max(200).describe('The authorization (oaz_…), from the consent page address'),
});

export const oauthGrantParamsSchema = z.object({
  id: z.string().max(200).describe('The grant (oag_…), from the listing'),
});

export const oauthAuthorizationSchema = z
  .object({
    id: z.string(),
    client_id: z.string(),
    client_name: z.string().nullable().describe('The name the app registered with (RFC 7591); null if none'),
    client_host: z
      .string()
      .nullable()
      .describe(
        "The host publishing the app's client ID metadata document (its client_id is that https URL); null for an app that registered itself",
      ),
    redirect_uri: z.string().describe('Where the answer goes'),
    redirect_host: z.string().describe("The redirect URI's host (or scheme, for an app's own scheme)"),
    account_email: z.string().describe('The signed-in account the app would act as'),
  })
  .describe('An app asking to act as the signed-in account on /mcp');

export const oauthDecisionBodySchema = z
  .looseObject({
    allow: z
      .boolean({ error: fieldError('must be true or false') })
      .describe('true to let the app act as the account on /mcp; false to decline'),
  })
  .describe("The person's answer");

export const oauthDecisionSchema = z
  .object({
    redirect_to: z
      .string()
      .describe(
        "Where to send the browser: the app's redirect URI with the code, or with error=access_denied",
      ),
  })
  .describe('Where the browser goes next');

export const oauthGrantSchema = z
  .object({
    id: z.string().describe('oag_…: names the grant (revocation)'),
    client_id: z.string(),
    client_name: z.string().nullable(),
    redirect_host: z.string().nullable().describe("The host of the app's first redirect URI"),
    created_at: z.number().int().describe('When the account allowed the app (epoch ms)'),
    last_used_at: z.number().int().nullable().describe('Last use on /mcp (epoch ms, to the minute)'),
    expires_at: z.number().int().describe('When the app must sign in again unless it refreshes (epoch ms)'),
    ended_at: z
      .number()
      .int()
      .nullable()
      .describe('When Atelier ended this sign-in for a security reason (epoch ms); null while it works'),
    ended_reason: z
      .enum(['refresh_token_reused', 'code_reused'])
      .nullable()
      .describe(
        'Why it was ended: a refresh token already replaced, or an authorization code already used, was presented again (it may have been copied); null while it works',
      ),
  })
  .describe('An app signed in with the account (OAuth); its tokens act on /mcp only');

export const oauthGrantListSchema = z
  .object({
    grants: z
      .array(oauthGrantSchema)
      .describe('Working grants, and those ended by Atelier in the last 30 days, oldest first'),
  })
  .describe('The apps signed in with the account');

export type OAuthGrantInfo = z.infer<typeof oauthGrantSchema>;
export type OAuthAuthorizationInfo = z.infer<typeof oauthAuthorizationSchema>;

/**
 * The meta element by which /authorize's problem page (a request that cannot go on, answered before
 * any redirect) hands the website the problem and the destination it did not go to, as JSON.
 */
export const AUTHORIZE_PROBLEM_META = 'atelier-authorize-problem';
export interface AuthorizeProblemInfo {
  problem: string;
  destination: string | null;
}
