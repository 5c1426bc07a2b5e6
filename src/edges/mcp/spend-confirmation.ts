import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  ElicitResultSchema,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { type AtelierClient, SPEND_CONFIRMATION_DEFAULTS } from '../client/atelier-client.js';
import { errorResult, LocalToolError, structuredResult } from './tool-results.js';

/** How long a tool call waits for the person's answer before it ends as not confirmed. */
export const CONFIRM_TIMEOUT_MS = 5 * 60 * 1000;

/** Where the person changes the setting (named by every refusal). */
const SETTING = 'the "Spend confirmation" setting on the Atelier website\'s account page (/account)';

/** What a call is about to spend, as the person is asked about it. */
export interface SpendPrice {
  /** "4 images at 4K on pro". */
  what: string;
  /** The most it can cost; null when it cannot be priced in advance (then it always asks). */
  maxMicros: number | null;
}

export interface SpendConfirmationOptions {
  /** What the calls act with: an API key, or a sign-in grant (OAuth access token on /mcp). */
  credential: 'api_key' | 'sign_in';
  timeoutMs?: number;
}

type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const dollars = (micros: number) => `$${(micros / 1_000_000).toFixed(2)}`;

/**
 * Asks the person (MCP elicitation, form mode) before a call that spends, when the account's spend
 * confirmation applies to this credential and the call can cost more than its threshold (docs/mcp.md
 * "Spend confirmation"). Answers undefined to go ahead, or the call's result when it must not run:
 * declined, not answered in time, or a host that cannot ask.
 */
export async function confirmSpend(
  server: Server,
  client: AtelierClient,
  price: (signal: AbortSignal) => Promise<SpendPrice>,
  extra: ToolExtra,
  options: SpendConfirmationOptions,
): Promise<CallToolResult | undefined> {
  let status: Awaited<ReturnType<AtelierClient['userStatus']>>;
  let spend: SpendPrice;
  try {
    status = await client.userStatus({ signal: extra.signal });
    const setting = status.spend_confirmation ?? SPEND_CONFIRMATION_DEFAULTS;
    if (!(options.credential === 'api_key' ? setting.api_keys : setting.sign_in)) return undefined;
    spend = await price(extra.signal);
    if (spend.maxMicros !== null && spend.maxMicros <= setting.above_micros) return undefined;
  } catch (error) {
    return errorResult(error);
  }
  const cost =
    spend.maxMicros === null ? 'its cost cannot be known in advance' : `at most ${dollars(spend.maxMicros)}`;
  const message = `${spend.what}, ${cost} — go ahead?`;
  const capabilities = server.getClientCapabilities();
  // A stateless /mcp POST never saw the client's initialize: it asks, and a host that cannot answers an error.
  if (capabilities && !capabilities.elicitation) return cannotAsk(message);
  let action: string;
  try {
    const answer = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
      },
      ElicitResultSchema,
      { timeout: options.timeoutMs ?? CONFIRM_TIMEOUT_MS },
    );
    action = answer.action;
  } catch (error) {
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      const seconds = Math.round((options.timeoutMs ?? CONFIRM_TIMEOUT_MS) / 1000);
      return errorResult(
        new LocalToolError(
          'not_confirmed',
          `The person did not answer "${message}" within ${seconds} s; nothing was spent.`,
        ),
      );
    }
    if (extra.signal.aborted) throw error;
    return cannotAsk(message);
  }
  if (action === 'accept') return undefined;
  return structuredResult({
    task_ids: [],
    email: status.email,
    finished: true,
    hint: `The person declined ("${message}"); nothing was created or charged. Do not try again unless they ask for it.`,
  });
}

function cannotAsk(message: string): CallToolResult {
  return errorResult(
    new LocalToolError(
      'confirmation_required',
      `This call needs the person's confirmation ("${message}"), but this MCP host cannot ask (it does not support elicitation). Nothing was spent. The person can raise the threshold or switch the confirmation off in ${SETTING}, or use a host that supports elicitation.`,
    ),
  );
}
