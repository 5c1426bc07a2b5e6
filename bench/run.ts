// Runs every benchmark in its own process and fails when one of them misses its budget.
import { spawnSync } from 'node:child_process';

const benches: Array<{ file: string; flags: string[] }> = [
  { file: 'bench/poll-throughput.ts', flags: [] },
  { file: 'bench/upload-memory.ts', flags: ['--expose-gc'] },
  { file: 'bench/upload-route-memory.ts', flags: [] },
];

let failed = 0;
for (const { file, flags } of benches) {
  console.log(`\n== ${file}`);
  const result = spawnSync(process.execPath, [...flags, '--import', 'tsx', file], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
