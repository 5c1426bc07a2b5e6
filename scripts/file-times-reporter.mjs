// A reporter for node's test runner (used by run-tests.mjs): how long each test file's tests took (the
// sum of its top-level tests' durations; they run one after another within a file), as JSON lines
// `{"file", "ms"}` at the end. With several files at once a file's time includes waiting for a core:
// it tells which files a run's time goes to, not what each costs alone.
export default async function* fileTimes(source) {
  const times = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (!file || nesting !== 0) continue;
    times.set(file, (times.get(file) ?? 0) + (details?.duration_ms ?? 0));
  }
  for (const [file, ms] of times) yield `${JSON.stringify({ file, ms: Math.round(ms) })}\n`;
}
