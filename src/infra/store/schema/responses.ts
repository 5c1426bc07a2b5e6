/** The table of src/capabilities/responses (migration 0070): the OpenAI Responses API's stored responses. */

/** One stored response of an account (owned by src/capabilities/responses; migration 0070). */
export interface ResponsesTable {
  /** `resp_…` */
  id: string;
  account_id: string;
  created_at: number;
  /** The response it continues (`previous_response_id`), if any. */
  previous_response_id: string | null;
  /** JSON array: the task of each `image_generation_call` item, in output order. */
  task_ids: string;
  /** JSON object: what the response echoes of its request (model, tools, options), results excluded. */
  body: string;
  /** When it was deleted (DELETE /v1/responses/{id}); a deleted response reads as none. */
  deleted_at: number | null;
}

export interface ResponseTables {
  responses: ResponsesTable;
}
