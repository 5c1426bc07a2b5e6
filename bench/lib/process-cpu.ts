/** CPU time of another process, read from /proc/<pid>/stat (Linux), and a probe of its latency. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

let ticksPerSecond: number | undefined;

/** User + system CPU seconds `pid` has used so far (all its threads). */
export function cpuSeconds(pid: number): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3; utime is 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/**
 * Sequential GETs of `path` every `everyMs` for `seconds` over one keep-alive connection: the
 * latency of a trivial route under no other load is the server's event-loop delay plus a
 * constant (the same probe against the bare server shows that constant).
 */
export async function probeLatency(baseUrl: string, path: string, seconds: number, everyMs = 10) {
  const pool = new Pool(baseUrl, { connections: 1 });
  const samples: number[] = [];
  const stopAt = performance.now() + seconds * 1000;
  try {
    while (performance.now() < stopAt) {
      const started = performance.now();
      const response = await pool.request({ method: 'GET', path });
      await response.body.dump();
      samples.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  } finally {
    await pool.close();
  }
  return samples;
}
