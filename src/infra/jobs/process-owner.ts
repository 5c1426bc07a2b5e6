import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Names the process that holds a claim (`host|pid-namespace|pid|token`), so that another process on
 * the same host can tell whether the holder is still running: a claim whose holder died (kill -9,
 * a crash, a restart on the same machine) is free at once instead of after its lease runs out.
 * Holders on other hosts, or in another PID namespace (another container), cannot be checked from
 * here: their claims are free when their lease expires, as in any cluster.
 */
export interface ProcessOwner {
  /** This process's owner id. */
  readonly id: string;
  /** True only when `other` is certainly dead: same host and PID namespace, and its process is gone. */
  isDead(other: string): boolean;
}

export interface ProcessIdentity {
  host: string;
  pidNamespace: string;
  pid: number;
  /** Tells this process apart from an earlier one with the same pid (a container restarted as pid 1). */
  token: string;
  /** Whether a process with this pid exists now. */
  processExists(pid: number): boolean;
}

// One token per process: every core in this process (tests run several) is the same holder.
// (Worker threads would each get their own token under one pid: Atelier serves from the main thread.)
const processToken = randomBytes(9).toString('base64url');

/** The running process's identity: host name, PID namespace (Linux), pid, a random token. */
export function currentProcessIdentity(): ProcessIdentity {
  return {
    host: hostname(),
    pidNamespace: pidNamespace(),
    pid: process.pid,
    token: processToken,
    processExists,
  };
}

/** Builds the owner id of `identity` and the liveness test of other owners. */
export function createProcessOwner(identity: ProcessIdentity = currentProcessIdentity()): ProcessOwner {
  const clean = (part: string) => part.replaceAll('|', '_');
  const id = [clean(identity.host), clean(identity.pidNamespace), identity.pid, identity.token].join('|');
  return {
    id,
    isDead(other) {
      if (other === id) return false;
      const [host, namespace, pidText, token] = other.split('|');
      if (host !== clean(identity.host) || namespace !== clean(identity.pidNamespace) || !token) return false;
      const pid = Number(pidText);
      if (!Number.isSafeInteger(pid) || pid <= 0) return false;
      // Only one process holds a pid at a time: if it is ours, the other one has ended.
      if (pid === identity.pid) return true;
      return !identity.processExists(pid);
    },
  };
}

function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '-';
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else. Only ESRCH proves it is gone.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
