import type { Logger } from 'pino';
import type { ProcessOwner } from './process-owner.js';

/**
 * A worker's lease owner id: its process's owner id (host, PID namespace, pid, token) and a name
 * for the worker, so that another process on the same host can tell a dead holder's leases apart.
 */
export function leaseOwnerId(process: ProcessOwner | undefined, worker: string): string {
  return process ? `${process.id}|${worker}` : worker;
}

/** The process part of a lease owner id made by `leaseOwnerId` (the first four `|`-separated parts). */
function processPart(owner: string): string {
  return owner.split('|').slice(0, 4).join('|');
}

/**
 * Gives back the leases held by processes on this host that are certainly gone (kill -9, a crash,
 * the previous run of a restarted node), so a restart resumes their work at once instead of after
 * the leases expire. Holders elsewhere, or not certainly dead, keep their leases until they expire.
 */
export async function reclaimDeadLeases(deps: {
  process: ProcessOwner | undefined;
  /** Distinct owners of the leases that are held now. */
  holders(): Promise<string[]>;
  release(owner: string): Promise<void>;
  logger: Logger;
  what: string;
}): Promise<void> {
  const { process } = deps;
  if (!process) return;
  const dead = (await deps.holders()).filter((owner) => process.isDead(processPart(owner)));
  for (const owner of dead) await deps.release(owner);
  if (dead.length > 0)
    deps.logger.info({ holders: dead.length }, `${deps.what}: took back leases of dead processes`);
}
