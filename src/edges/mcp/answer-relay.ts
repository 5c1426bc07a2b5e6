import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCResultResponse,
} from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';

/** A client's answer to a request the server sent it (an elicitation). */
export type ClientAnswer = JSONRPCResultResponse | JSONRPCErrorResponse;

/** The ids /mcp gives the requests it sends clients: unique across POSTs and nodes. */
const ID_PREFIX = 'atl_req_';

/** How often a tool call waiting for an answer looks for one another node received. */
export const ANSWER_POLL_MS = 500;

/** How long an answer nobody took is kept (any wait ends long before). */
const ANSWER_KEPT_MS = 30 * 60 * 1000;

/** Answers POSTed to a node other than the waiting one, through the store (table mcp_answers). */
export interface AnswerStore {
  put(id: string, accountId: string, answer: ClientAnswer): Promise<void>;
  /** The answer to `id` given by `accountId`, removed as it is taken; undefined while there is none. */
  take(id: string, accountId: string): Promise<ClientAnswer | undefined>;
}

export function createAnswerStore({ db, clock }: { db: Db; clock: Clock }): AnswerStore {
  return {
    async put(id, accountId, answer) {
      const now = clock.now();
      await db
        .deleteFrom('mcp_answers')
        .where('created_at', '<', now - ANSWER_KEPT_MS)
        .execute();
      await db
        .insertInto('mcp_answers')
        .values({ id, account_id: accountId, message_json: JSON.stringify(answer), created_at: now })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .execute();
    },
    async take(id, accountId) {
      const row = await db
        .deleteFrom('mcp_answers')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .returning('message_json')
        .executeTakeFirst();
      return row ? (JSON.parse(row.message_json) as ClientAnswer) : undefined;
    },
  };
}

/** The messages of a POST body when every one is an answer (a JSON-RPC response), else undefined. */
export function answersIn(body: unknown): ClientAnswer[] | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const isAnswer = (message: unknown) => isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
  return messages.length > 0 && messages.every(isAnswer) ? (messages as ClientAnswer[]) : undefined;
}

/**
 * Requests /mcp sends clients (an elicitation on a tool call's event stream) and the answers that
 * come back. /mcp is stateless: each POST has its own server, whose request ids (0, 1, …) would
 * collide across POSTs, and the client POSTs its answer as a new request, to any node. So a request
 * goes out under a unique id; an answer POSTed to the node that waits is handed to its server at
 * once, one POSTed elsewhere is stored and found by the waiting node's poll (every ANSWER_POLL_MS).
 */
export function createAnswerRelay({
  store,
  pollMs = ANSWER_POLL_MS,
}: {
  store: AnswerStore;
  pollMs?: number;
}) {
  const waiting = new Map<string, { accountId: string; deliver: (answer: ClientAnswer) => void }>();
  return {
    /**
     * Sends `transport`'s requests under unique ids and hands their answers back under the ids its
     * server gave them. Answers the function that stops waiting (call it when the POST ends).
     */
    bind(transport: Transport, accountId: string): () => void {
      const ours = new Set<string>();
      const ends: Array<() => void> = [];
      const send = transport.send.bind(transport);
      const stop = (id: string) => {
        ours.delete(id);
        waiting.delete(id);
      };
      transport.send = async (message, options) => {
        if (!isJSONRPCRequest(message)) return send(message, options);
        const id = `${ID_PREFIX}${randomUUID()}`;
        const timer = setInterval(() => {
          store.take(id, accountId).then(
            (answer) => answer && deliver(answer),
            () => {},
          );
        }, pollMs);
        timer.unref();
        const deliver = (answer: ClientAnswer) => {
          clearInterval(timer);
          if (!ours.has(id)) return;
          stop(id);
          transport.onmessage?.({ ...answer, id: message.id });
        };
        ours.add(id);
        waiting.set(id, { accountId, deliver });
        ends.push(() => clearInterval(timer));
        return send({ ...message, id }, options);
      };
      return () => {
        for (const end of ends) end();
        for (const id of [...ours]) stop(id);
      };
    },

    /** Answers POSTed by `accountId`: to a call waiting here, else stored for the node that waits. */
    async receive(answers: readonly ClientAnswer[], accountId: string): Promise<void> {
      for (const answer of answers) {
        const id = typeof answer.id === 'string' ? answer.id : '';
        if (!id.startsWith(ID_PREFIX)) continue; // an answer to nothing /mcp asked: dropped
        const here = waiting.get(id);
        if (here) {
          if (here.accountId === accountId) here.deliver(answer);
          continue;
        }
        await store.put(id, accountId, answer);
      }
    },
  };
}

export type AnswerRelay = ReturnType<typeof createAnswerRelay>;
