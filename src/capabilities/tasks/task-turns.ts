import type { Clock } from '../../base/runtime/clock.js';
import type { Db } from '../../infra/store/database.js';
import type { AnsweredPart, AnsweredTurn, ConversationTurn } from '../providers/index.js';
import type { ReferenceDecoding } from './reference-decoding.js';
import type { LeasedTask, TaskRow } from './tasks-repository.js';

/** Turns sent back at most (the refined image's and its ancestors'); older ones are left out. */
export const MAX_KEPT_TURNS = 6;

/**
 * A task's kept turn (`task_turns.turn_json`): the user's side as the task sent it (its prompt, its
 * references by blob key) and the model's parts as its upstream answered them, the image by the
 * task's result blob key. `parentTaskId` links the turns of one conversation.
 */
export interface KeptTurn {
  parentTaskId: string | null;
  upstreamModel: string;
  prompt: string;
  refKeys: string[];
  imageKey: string;
  parts: AnsweredPart[];
}

/**
 * The kept conversation turns (issue 44, migration 0071): the engine keeps the turn an upstream
 * answered (Gemini's signed parts) with the task, and a later task of the same account that refines
 * that image on the same provider and model sends the conversation back. The engine's only.
 */
export function createTaskTurns({ db, clock }: { db: Db; clock: Clock }) {
  return {
    /** Keeps the turn `leased` was answered (again on a retried rehost: the last answer wins). */
    async keep(leased: LeasedTask, imageKey: string, turn: AnsweredTurn): Promise<void> {
      const { task, generation } = leased;
      const kept: KeptTurn = {
        parentTaskId: task.parent_task_id ?? null,
        upstreamModel: task.upstream_model,
        prompt: generation.prompt,
        refKeys: JSON.parse(generation.ref_keys_json) as string[],
        imageKey,
        parts: turn.parts,
      };
      const turnJson = JSON.stringify(kept);
      await db
        .insertInto('task_turns')
        .values({
          task_id: task.id,
          account_id: task.account_id,
          provider: task.provider,
          turn_json: turnJson,
          created_at: clock.now(),
        })
        .onConflict((conflict) => conflict.column('task_id').doUpdateSet({ turn_json: turnJson }))
        .execute();
    },

    /**
     * The kept turns `task` continues, oldest first: its parent's, then the parent's parent's, while
     * each is the account's, on the task's provider and model. None when the parent kept no turn.
     */
    async chainOf(task: TaskRow): Promise<KeptTurn[]> {
      const chain: KeptTurn[] = [];
      let id = task.parent_task_id ?? null;
      while (id !== null && chain.length < MAX_KEPT_TURNS) {
        const row = await db
          .selectFrom('task_turns')
          .select('turn_json')
          .where('task_id', '=', id)
          .where('account_id', '=', task.account_id)
          .where('provider', '=', task.provider)
          .executeTakeFirst();
        const kept = row && (JSON.parse(row.turn_json) as KeptTurn);
        if (!kept || kept.upstreamModel !== task.upstream_model) break;
        chain.unshift(kept);
        id = kept.parentTaskId;
      }
      return chain;
    },
  };
}

export type TaskTurns = ReturnType<typeof createTaskTurns>;

/**
 * The conversation a leased task continues, its images read from storage (oldest turn first); none
 * when it refines no image with a kept turn, or an image of it is no longer stored (the parent image
 * then goes as a reference, as for any refinement).
 */
export async function historyOf(
  turns: TaskTurns | undefined,
  decoding: Pick<ReferenceDecoding, 'load'>,
  task: TaskRow,
): Promise<ConversationTurn[]> {
  if (!turns || !task.parent_task_id) return [];
  const chain = await turns.chainOf(task);
  const history: ConversationTurn[] = [];
  for (const [i, kept] of chain.entries()) {
    // A later turn's first reference is its parent's image, which the turn before already carries.
    const refKeys = i === 0 ? kept.refKeys : kept.refKeys.slice(1);
    const references = await decoding.load(task.account_id, refKeys);
    const images = await decoding.load(task.account_id, [kept.imageKey]);
    if (typeof references === 'string' || typeof images === 'string' || !images[0]) return [];
    const image = images[0];
    const model = kept.parts.map((part) => ('image' in part ? { ...part, image } : part));
    history.push({ user: { prompt: kept.prompt, references }, model });
  }
  return history;
}
