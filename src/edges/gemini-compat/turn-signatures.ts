import { createHmac, timingSafeEqual } from 'node:crypto';

const TAG = 'atelier-turn-v1';

/**
 * Atelier's own `thoughtSignature` on the image part it answers (issue 44): an opaque token (base64,
 * as Google's are) naming the image's task under an HMAC of the deployment's key bound to the
 * account. A client that continues the conversation sends the part back with it, and the next turn
 * refines that task's image (`parentId`). Nothing is stored: any node verifies it; another account's
 * token, a forged or a foreign one (Google's own) verifies as none.
 */
export function createTurnSignatures(key: Buffer) {
  const mac = (accountId: string, taskId: string) =>
    createHmac('sha256', key)
      .update(`gemini-turn\0${accountId}\0${taskId}`)
      .digest()
      .subarray(0, 18)
      .toString('base64url');

  return {
    /** The signature of `taskId`'s image, for `accountId`'s answer. */
    sign(accountId: string, taskId: string): string {
      return Buffer.from(`${TAG}.${taskId}.${mac(accountId, taskId)}`).toString('base64');
    },

    /** The task a signature names, if it is one of this deployment's for `accountId`; else undefined. */
    taskOf(accountId: string, signature: string): string | undefined {
      const [tag, taskId = '', given = '', ...rest] = Buffer.from(signature, 'base64')
        .toString('utf8')
        .split('.');
      if (tag !== TAG || rest.length > 0) return undefined;
      return verify(mac, accountId, taskId, given);
    },
  };
}

/** `taskId` when `given` is its MAC for the account (compared in constant time). */
function verify(
  mac: (accountId: string, taskId: string) => string,
  accountId: string,
  taskId: string,
  given: string,
): string | undefined {
  if (!/^tsk_[A-Za-z0-9_-]+$/.test(taskId)) return undefined;
  const expected = Buffer.from(mac(accountId, taskId));
  const sent = Buffer.from(given);
  return sent.length === expected.length && timingSafeEqual(sent, expected) ? taskId : undefined;
}

export type TurnSignatures = ReturnType<typeof createTurnSignatures>;
