import type { Clock } from '../../base/runtime/clock.js';
import type { IdGenerator } from '../../base/runtime/ids.js';
import type { Db } from '../../infra/store/database.js';

/**
 * Stored responses of the OpenAI Responses API (table `responses`, migration 0070), per account:
 * what a response echoes of its request and the tasks its images are. The images stay the tasks'
 * results (kept like every work); a response is read back only by its account, and a deletion
 * marks the row, which then reads as none.
 */

/** A stored response: its id, account, when, what it continues, its tasks and its echoed request. */
export interface StoredResponse {
  id: string;
  accountId: string;
  createdAt: number;
  previousResponseId: string | null;
  /** The task of each image item, in output order. */
  taskIds: string[];
  /** What the response echoes of its request (JSON-safe), results excluded. */
  body: Record<string, unknown>;
}

export interface ResponsesDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
}

export function createResponses({ db, clock, ids }: ResponsesDeps) {
  return {
    /** A new response id (`resp_…`) and the time it is made. */
    newId: () => ({ id: ids.next('resp'), createdAt: clock.now() }),

    async save(response: StoredResponse): Promise<void> {
      await db
        .insertInto('responses')
        .values({
          id: response.id,
          account_id: response.accountId,
          created_at: response.createdAt,
          previous_response_id: response.previousResponseId,
          task_ids: JSON.stringify(response.taskIds),
          body: JSON.stringify(response.body),
          deleted_at: null,
        })
        .execute();
    },

    /** The account's response `id`; undefined for another account's, a deleted or an unknown one. */
    async find(accountId: string, id: string): Promise<StoredResponse | undefined> {
      const row = await db
        .selectFrom('responses')
        .selectAll()
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        id: row.id,
        accountId: row.account_id,
        createdAt: Number(row.created_at),
        previousResponseId: row.previous_response_id,
        taskIds: JSON.parse(row.task_ids) as string[],
        body: JSON.parse(row.body) as Record<string, unknown>,
      };
    },

    /** Marks the account's response deleted; false when it has no such response. */
    async remove(accountId: string, id: string): Promise<boolean> {
      const result = await db
        .updateTable('responses')
        .set({ deleted_at: clock.now() })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

export type Responses = ReturnType<typeof createResponses>;
