import { createRecentMap } from '../../base/collections/recent-map.js';
import { taskRecordSchema } from '../../base/contract/tasks.js';
import { isFinalStatus } from '../../base/domain/task-status.js';
import type { TaskRecordRow } from '../../capabilities/tasks/index.js';
import { notFoundRecord, toTaskRecord } from '../../capabilities/tasks/index.js';
import { compiledAtFirstUse, compileJsonSerializer } from '../http/response-serializer.js';

/**
 * Batch answers kept as bytes (up to 20 records, about 5 KB each), for the batches whose every id was
 * a final record kept in memory: 1,000 of them are at most about 6 MB.
 */
export const FINAL_BATCHES_KEPT = 1_000;

/**
 * Task records as the JSON bytes of the poll routes, written by the serializer compiled from the
 * contract's TaskRecord schema (the one the routes' response schemas compile to). The text of a
 * final record is kept beside its row: final rows are kept frozen, once, by the repository (see
 * final-records.ts), so a poll of a finished task — and every finished id of a batch — costs a
 * lookup instead of a mapping and a serialisation. A batch is `{"tasks":[…]}` around the records'
 * texts, byte for byte what the batch schema's serializer writes (task-record-json.test.ts).
 */
export function createTaskRecordJson() {
  const serialize = compiledAtFirstUse(() => compileJsonSerializer(taskRecordSchema));
  const finalTexts = new WeakMap<TaskRecordRow, string>();
  const finalBatches = createRecentMap<string, Buffer>(FINAL_BATCHES_KEPT);
  const textOf = (row: TaskRecordRow): string => {
    if (!isFinalStatus(row.status)) return serialize(toTaskRecord(row));
    let text = finalTexts.get(row);
    if (text === undefined) {
      text = serialize(toTaskRecord(row));
      finalTexts.set(row, text);
    }
    return text;
  };
  const batch = (ids: readonly string[], rows: readonly TaskRecordRow[]): string => {
    const byId = new Map<string, TaskRecordRow>();
    for (const row of rows) byId.set(row.id, row);
    let text = '{"tasks":[';
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as string;
      const row = byId.get(id);
      if (i > 0) text += ',';
      text += row === undefined ? serialize(notFoundRecord(id)) : textOf(row);
    }
    return `${text}]}`;
  };
  return {
    /** One record's text. */
    one: textOf,
    /** `{"tasks":[…]}` for `ids` in input order; an id without a row is answered "Task not found" in place. */
    batch,
    /**
     * The batch answer's bytes when every id is final and kept (`keptRows` answers the account's
     * rows, or undefined when any id is not): such an answer never changes — a final record is
     * final, and an id that is not the account's never becomes it — so it is kept, by account and
     * id list, and a batch polled again costs a lookup instead of assembling, measuring and
     * encoding 5 KB of text.
     */
    finalBatch(
      accountId: string,
      ids: readonly string[],
      keptRows: () => readonly TaskRecordRow[] | undefined,
    ): Buffer | undefined {
      const key = `${accountId} ${ids.join(',')}`;
      let bytes = finalBatches.get(key);
      if (bytes === undefined) {
        const rows = keptRows();
        if (rows === undefined) return undefined;
        bytes = Buffer.from(batch(ids, rows));
        finalBatches.set(key, bytes);
      }
      return bytes;
    },
  };
}
