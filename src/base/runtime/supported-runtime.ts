/**
 * The Node.js lines Atelier supports: the LTS lines it is tested on. `engines.node` in package.json is
 * written from this list (a test keeps the two equal). Node 20 is end-of-life, and better-sqlite3 13
 * (Node-API) crashes on it; 22.12 is the first 22.x that loads ES modules with require() unflagged.
 */
export const SUPPORTED_NODE_LINES = [
  { major: 22, minMinor: 12 },
  { major: 24, minMinor: 0 },
  { major: 26, minMinor: 0 },
] as const;

/** The semver range of `engines.node`. */
export function supportedEnginesRange(): string {
  return SUPPORTED_NODE_LINES.map(({ major, minMinor }) => `^${major}.${minMinor}.0`).join(' || ');
}

/** Whether a `process.versions.node`-style version string is on a supported line. */
export function isSupportedNodeVersion(version: string): boolean {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return SUPPORTED_NODE_LINES.some((line) => line.major === major && (minor ?? 0) >= line.minMinor);
}

/** The message an unsupported runtime gets: the version found, the versions supported, what to do. */
export function unsupportedRuntimeMessage(version: string, execPath: string): string {
  const lines = SUPPORTED_NODE_LINES.map(({ major, minMinor }) =>
    minMinor > 0 ? `${major}.${minMinor}+` : `${major}`,
  ).join(', ');
  return [
    `Atelier needs Node.js ${lines} (the LTS lines it is tested on); this is Node.js ${version} (${execPath}).`,
    'Start it with `npm start` or `bin/atelier` from a checkout after `npm ci`: they use the Node.js',
    'the project pins in node_modules. Otherwise install a supported Node.js.',
  ].join('\n');
}
