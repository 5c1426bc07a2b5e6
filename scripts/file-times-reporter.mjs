// A reporter for node's test runner (used by run-tests.mjs): how long each test file took, from the
// first event the runner saw of it to its last, as JSON lines `{"file", "ms"}` at the end. With
// several files at once a file's span includes waiting for a core: it tells which files a run's
// time goes to, not what each costs alone.
export default async function* fileTimes(source) {
  const spans = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file) continue;
    const now = performance.now();
    const span = spans.get(file);
    if (span) span.last = now;
    else spans.set(file, { first: now, last: now });
  }
  for (const [file, { first, last }] of spans)
    yield `${JSON.stringify({ file, ms: Math.round(last - first) })}\n`;
}
