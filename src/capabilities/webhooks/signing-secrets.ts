import { ROTATION_GRACE } from '../../base/contract/webhooks.js';
import { Conflict, InvalidInput } from '../../base/domain/errors.js';
import type { Clock } from '../../base/runtime/clock.js';
import { bindLegacySeals, type SecretBox, sealContext } from '../../base/secrets/secret-box.js';
import { generateWebhookSecret } from './signature.js';
import type { WebhooksRepository } from './webhooks-repository.js';

/** What a webhook secret's seal is bound to: its account (both the current and the previous one). */
const secretContext = (accountId: string) => sealContext('webhook_secrets', accountId);

/**
 * Each account's Standard Webhooks signing secret (`whsec_…`, sealed at rest), created on first
 * use, and its rotation: the replaced secret keeps signing beside the new one for a grace period,
 * so receivers can switch to the new one without dropping a delivery.
 */
export function createSigningSecrets(deps: {
  repository: WebhooksRepository;
  secrets: SecretBox;
  clock: Clock;
  /** Told when an account's sealed secret did not open in its row (it is replaced by a new one). */
  onUnusableSeal?: (accountId: string) => void;
}) {
  const { repository, secrets, clock } = deps;

  /** The plaintext of a seal made for this account's row, or undefined when it does not open here. */
  const open = (accountId: string, sealed: string | null): string | undefined => {
    if (sealed === null) return undefined;
    try {
      return secrets.open(sealed, secretContext(accountId));
    } catch {
      return undefined;
    }
  };

  /**
   * The account's secret row with its current secret opened, created on first use. A current seal
   * that does not open here (copied from another account's row, or tampered with) is replaced by a
   * new secret, so a delivery is never signed with, nor a caller shown, a secret not its own.
   */
  async function usable(accountId: string) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const found = await repository.findSecret(accountId);
      const current = found && open(accountId, found.ciphertext);
      if (found && current !== undefined) return { ...found, current };
      const fresh = secrets.seal(generateWebhookSecret(), secretContext(accountId));
      if (found === undefined) await repository.insertSecretIfAbsent(accountId, fresh);
      else {
        deps.onUnusableSeal?.(accountId);
        await repository.rotateSecret(accountId, found.ciphertext, fresh, null);
      }
    }
    throw new Error('the webhook secret changed under every attempt to read it');
  }

  return {
    /** The account's current secret, created on first use. */
    async current(accountId: string): Promise<string> {
      return (await usable(accountId)).current;
    },

    /** The secrets a delivery is signed with now: the current one, then the replaced one in its grace. */
    async signing(accountId: string): Promise<string[]> {
      const found = await usable(accountId);
      const until = found.previous_expires_at;
      const previous =
        until !== null && until > clock.now() ? open(accountId, found.previous_ciphertext) : undefined;
      return previous === undefined ? [found.current] : [found.current, previous];
    },

    /**
     * Replaces the account's secret by a new one; the replaced one keeps signing for
     * `graceSeconds` (0: it stops at once). A secret still in its grace from an earlier rotation
     * stops now. Answers the new secret and when the replaced one stops (null: it already has).
     */
    async rotate(
      accountId: string,
      graceSeconds: number = ROTATION_GRACE.defaultSeconds,
    ): Promise<{ secret: string; previousExpiresAt: number | null }> {
      const { maxSeconds } = ROTATION_GRACE;
      if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > maxSeconds)
        throw new InvalidInput(
          `grace_seconds must be an integer between 0 and ${maxSeconds}`,
          'grace_seconds',
        );
      const { ciphertext: from } = await usable(accountId);
      const secret = generateWebhookSecret();
      const previousExpiresAt = graceSeconds === 0 ? null : clock.now() + graceSeconds * 1000;
      const sealed = secrets.seal(secret, secretContext(accountId));
      if (!(await repository.rotateSecret(accountId, from, sealed, previousExpiresAt)))
        throw new Conflict('The webhook secret was rotated by another request at the same time; try again');
      return { secret, previousExpiresAt };
    },

    /** Binds secrets sealed before seals were bound to their row (at start). */
    async bindLegacy(): Promise<number> {
      return bindLegacySeals(
        secrets,
        await repository.legacySealedSecrets(),
        (legacy) => secretContext(legacy.account_id),
        (legacy, bound) => repository.resealSecret(legacy.account_id, legacy.sealed, bound),
      );
    },
  };
}

export type SigningSecrets = ReturnType<typeof createSigningSecrets>;
