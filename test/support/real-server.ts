import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/** One run of the real server process (`node --import tsx src/server.ts`), as an operator starts it. */
export interface RealServer {
  child: ChildProcess;
  pid: number;
  /** Everything it wrote on stdout and stderr. */
  output(): string;
  /** Ends it at once with SIGKILL (kill -9: no hook, no shutdown) and waits for it to be gone. */
  kill9(): Promise<void>;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the server with `env` and resolves once it logs that it is ready (LOG_LEVEL must let info
 * through). Every line it prints also goes to `log`, so a test keeps the logs of every run.
 */
export async function startRealServer(
  env: NodeJS.ProcessEnv,
  log: (text: string) => void,
): Promise<RealServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const ready = new Promise<void>((resolveReady, reject) => {
    const append = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      log(text);
      if (output.includes('"msg":"atelier is ready"')) resolveReady();
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    void exited.then(([code, signal]) =>
      reject(new Error(`the server exited (${code ?? signal}) before it was ready:\n${output}`)),
    );
  });
  await ready;
  return {
    child,
    pid: child.pid ?? 0,
    output: () => output,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const [code] = await exited;
      return code;
    },
  };
}
