import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  isSupportedNodeVersion,
  supportedEnginesRange,
  unsupportedRuntimeMessage,
} from './supported-runtime.js';

const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

/** The machine's own `node` (first on PATH outside node_modules), when it is not a supported line. */
function unsupportedSystemNode(): { path: string; version: string } | undefined {
  const path = (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => dir && !dir.includes('node_modules'))
    .map((dir) => `${dir}/node`)
    .find((candidate) => spawnSync(candidate, ['--version']).status === 0);
  if (!path) return undefined;
  const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return isSupportedNodeVersion(version) ? undefined : { path, version };
}

describe('supported Node.js runtime', () => {
  test('package.json engines.node is the supported list', () => {
    assert.equal(packageJson.engines.node, supportedEnginesRange());
  });

  test('the pinned runtime is on a supported line, and so is the one running this test', () => {
    assert.ok(isSupportedNodeVersion(packageJson.devDependencies.node ?? ''), 'devDependencies.node');
    assert.ok(isSupportedNodeVersion(process.versions.node), process.version);
  });

  test('versions: 22.12+, 24 and 26 are supported; 20, 22.11, 23, 25 and 28 are not', () => {
    for (const version of ['22.12.0', 'v22.23.3', '24.0.0', '24.21.0', '26.10.0'])
      assert.ok(isSupportedNodeVersion(version), version);
    for (const version of ['v20.20.2', '22.11.0', '23.11.0', '25.1.0', '28.0.0', 'garbage'])
      assert.ok(!isSupportedNodeVersion(version), version);
  });

  test('the message names the version found and the versions supported', () => {
    const message = unsupportedRuntimeMessage('v20.20.2', '/usr/bin/node');
    assert.match(message, /v20\.20\.2 \(\/usr\/bin\/node\)/);
    assert.match(message, /22\.12\+, 24, 26/);
  });

  const oldNode = unsupportedSystemNode();
  test("the server and the CLI stop at once on the machine's unsupported node, with the message", {
    skip: oldNode ? false : 'no unsupported node on PATH outside node_modules',
  }, () => {
    const { path, version } = oldNode as { path: string; version: string };
    for (const args of [
      ['--import', 'tsx', 'src/server.ts'],
      ['bin/atelier.mjs', 'accounts', 'list'],
    ]) {
      const run = spawnSync(path, args, {
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, PORT: '0' },
      });
      assert.equal(run.status, 1, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, new RegExp(`this is Node\\.js ${version.replace(/\./g, '\\.')}`));
      assert.match(run.stderr, /needs Node\.js 22\.12\+, 24, 26/);
    }
  });
});
