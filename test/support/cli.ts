import { runCli } from '../../src/edges/cli/main.js';

/** Runs the CLI in process with `env` (never the real process.env), capturing what it prints. */
export async function cli(env: NodeJS.ProcessEnv, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env: { LOG_LEVEL: 'silent', ATELIER_DEMO_ACCOUNT: 'false', ...env },
    out: (line) => {
      stdout += `${line}\n`;
    },
    err: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}
