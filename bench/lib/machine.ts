/** The machine a run happened on, and how busy it was: recorded with every result. */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  node: string;
  platform: string;
  gitCommit: string;
  /** True when the working tree differs from the commit (other work in progress is measured too). */
  gitDirty: boolean;
  loadAverageAtStart: number[];
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** CPU, cores, memory, Node version and git commit of this run. */
export function machineInfo(): MachineInfo {
  return {
    cpuModel: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    gitCommit: git(['rev-parse', 'HEAD']) || 'unknown',
    gitDirty: git(['status', '--porcelain', '--untracked-files=no']) !== '',
    loadAverageAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

/** A warning when the 1-minute load average (highest seen in the run) exceeds ¾ of the cores. */
export function loadWarning(cores: number, samples: number[]): string | undefined {
  const peak = Math.max(...samples);
  if (peak <= cores * 0.75) return undefined;
  return (
    `load average up to ${peak.toFixed(2)} on ${cores} cores during the run (${samples.map((n) => n.toFixed(1)).join(', ')}): ` +
    'the machine was shared with other work, so absolute figures and ratios are noisier and lower than on an idle machine'
  );
}
