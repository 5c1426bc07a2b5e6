/**
 * A helper process driven over IPC: the load generator and the bare server each run in their own
 * process, so neither shares an event loop with the orchestrator or with the server under test.
 */
import { type ChildProcess, fork, spawnSync } from 'node:child_process';

export interface IpcChild {
  pid: number;
  /** Sends one request and resolves with the child's answer to it. */
  call<T>(message: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Pins every thread of process `pid` to the CPUs in `cpus` (a `taskset -c` list, e.g. `1`); threads
 * it starts later inherit the pinning. Throws when taskset is missing or refuses.
 */
export function pinProcess(pid: number, cpus: string): void {
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { encoding: 'utf8' });
  if (pinned.status !== 0)
    throw new Error(`taskset -a -p -c ${cpus} ${pid} failed: ${pinned.stderr || pinned.error}`);
}

/**
 * Forks `file` (TypeScript, through tsx; `env` added to this process's) and waits for its
 * `{ ready: true }`; with `cpus`, pins the child (all its threads) to them once it is ready.
 */
export async function startIpcChild(
  file: string,
  env: Record<string, string> = {},
  cpus?: string,
): Promise<IpcChild> {
  const child: ChildProcess = fork(file, [], {
    env: { ...process.env, ...env },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('exit', (code, signal) => {
    for (const { reject } of pending.values()) reject(new Error(`${file} exited (${code ?? signal})`));
    pending.clear();
  });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${file} exited before it was ready (${code})`)));
    child.once('message', () => resolve());
  });
  if (cpus !== undefined) pinProcess(child.pid ?? 0, cpus);
  child.on('message', (raw) => {
    const { id, error, result } = raw as { id: number; error?: string; result?: unknown };
    const waiter = pending.get(id);
    pending.delete(id);
    if (error) waiter?.reject(new Error(error));
    else waiter?.resolve(result);
  });
  return {
    pid: child.pid ?? 0,
    call<T>(message: Record<string, unknown>) {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ ...message, id });
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The child side: answers each request with `handle`, after announcing it is ready. */
export function serveIpc(handle: (message: Record<string, unknown>) => Promise<unknown>): void {
  process.on('message', (raw) => {
    const message = raw as Record<string, unknown> & { id: number };
    handle(message).then(
      (result) => process.send?.({ id: message.id, result }),
      (error: Error) => process.send?.({ id: message.id, error: error.stack ?? String(error) }),
    );
  });
  process.on('SIGTERM', () => process.exit(0));
  process.send?.({ ready: true });
}
