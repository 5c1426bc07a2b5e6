// The MCP registry's server.json (packages/mcp/server.json) and the deployment's discovery document
// (/.well-known/mcp/server.json, built by the same code): checked against the registry's published
// JSON Schema (server.schema.json, 2025-12-11) with Ajv, and against the rules that schema states.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import {
  deploymentServerCard,
  NPM_PACKAGE,
  REGISTRY_NAME,
  registryEntry,
  SERVER_SCHEMA_URL,
} from '../../src/edges/mcp/discovery.js';
import { SERVER_VERSION } from '../../src/edges/mcp/server.js';

const PACKAGE_DIR = join(import.meta.dirname, '..', '..', 'packages', 'mcp');
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * The published schema: from ATELIER_MCP_SERVER_SCHEMA (a file) when set, else from its URL. Not
 * kept in the repository; where neither can be read (no network), the schema test says so and skips.
 */
async function publishedSchema(): Promise<object | string> {
  const file = process.env.ATELIER_MCP_SERVER_SCHEMA;
  try {
    if (file) return JSON.parse(await readFile(file, 'utf8')) as object;
    const answer = await fetch(SERVER_SCHEMA_URL, { signal: AbortSignal.timeout(5000) });
    if (!answer.ok) return `${SERVER_SCHEMA_URL} answered ${answer.status}`;
    return (await answer.json()) as object;
  } catch (error) {
    return `${file ?? SERVER_SCHEMA_URL} could not be read (${error instanceof Error ? error.message : error})`;
  }
}

const SIGN_IN = {
  resourceMetadataUrl: 'https://atelier.example.com/.well-known/oauth-protected-resource/mcp',
  scope: 'mcp',
};

type Entry = {
  name: string;
  description: string;
  version: string;
  title?: string;
  packages?: Array<{ identifier: string; version: string; transport: { type: string } }>;
  remotes?: Array<{ type: string; url: string; variables?: Record<string, unknown> }>;
  icons?: Array<{ src: string; mimeType?: string }>;
};

/** The rules the registry's schema states, written out: they hold with or without the schema at hand. */
function assertRegistryRules(entry: Entry): void {
  assert.match(entry.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
  assert.ok(entry.description.length >= 1 && entry.description.length <= 100, entry.description);
  assert.ok((entry.title ?? '').length <= 100);
  for (const version of [entry.version, ...(entry.packages ?? []).map((p) => p.version)]) {
    assert.match(version, /^\d+\.\d+\.\d+(-[\w.]+)?$/, 'a specific version, no range, not latest');
  }
  for (const remote of entry.remotes ?? []) {
    assert.equal(remote.type, 'streamable-http');
    assert.match(remote.url, /^https?:\/\/[^\s]+$/);
    for (const name of remote.url.match(/\{(\w+)\}/g) ?? []) {
      assert.ok(remote.variables?.[name.slice(1, -1)], `${name} is a declared variable`);
    }
  }
  for (const icon of entry.icons ?? []) {
    assert.ok(icon.src.length <= 255 && icon.src.startsWith('https://'), icon.src);
    assert.ok(['image/png', 'image/jpeg', 'image/svg+xml', 'image/webp'].includes(icon.mimeType ?? ''));
  }
}

describe('MCP registry server.json', () => {
  it('packages/mcp/server.json is the generated entry, for the package as it is', async () => {
    const file = JSON.parse(await readFile(join(PACKAGE_DIR, 'server.json'), 'utf8')) as Entry;
    const pkg = JSON.parse(await readFile(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      mcpName: string;
    };
    assert.deepEqual(file, registryEntry(pkg.version), 'regenerate server.json from registryEntry');
    // The registry checks the npm package names the server (mcpName); the versions go together.
    assert.equal(pkg.mcpName, REGISTRY_NAME);
    assert.equal(file.name, REGISTRY_NAME);
    assert.equal(pkg.name, NPM_PACKAGE);
    assert.equal(file.packages?.[0]?.identifier, pkg.name);
    assert.equal(pkg.version, SERVER_VERSION);
    assert.deepEqual(
      file.remotes?.map((remote) => remote.url),
      ['https://{host}/mcp', 'https://{host}/mcp/readonly'],
    );
  });

  it('the entry and the discovery document follow the rules the registry states', () => {
    assertRegistryRules(registryEntry('0.1.0'));
    assertRegistryRules(deploymentServerCard('https://atelier.example.com', SIGN_IN));
    assertRegistryRules(deploymentServerCard('https://atelier.example.com/', undefined));
  });

  it('the entry and the discovery document are valid against the published schema', async (t) => {
    const schema = await publishedSchema();
    if (typeof schema === 'string') {
      t.skip(`${schema}; set ATELIER_MCP_SERVER_SCHEMA to a copy of ${SERVER_SCHEMA_URL}`);
      return;
    }
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
    const validate = ajv.compile(schema);
    const documents = {
      entry: registryEntry('0.1.0'),
      card: deploymentServerCard('https://atelier.example.com', SIGN_IN),
      'card without sign-in': deploymentServerCard('https://atelier.example.com', undefined),
    };
    for (const [name, document] of Object.entries(documents)) {
      assert.ok(validate(document), `${name}: ${JSON.stringify(validate.errors)}`);
    }
    // The schema is strict enough to fail: a version range and a long description are refused.
    assert.equal(validate({ ...documents.entry, version: '^0.1.0', description: 'x'.repeat(101) }), false);
  });
});
