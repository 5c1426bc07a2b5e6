/** Where the CLI reads its settings and writes its answers (the process's own, or a test's). */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (text: string) => void;
}

/** The process's own environment, stdout and stderr. */
export const processIo: CliIo = {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (text) => process.stderr.write(text),
};
