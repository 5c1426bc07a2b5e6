// docs/api.md is the project's API reference: every public operation of the served OpenAPI document
// has its section, and every error type its row, so the reference cannot silently fall behind.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { errorStatus } from '../../src/edges/http/errors.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

const reference = await readFile(new URL('../../docs/api.md', import.meta.url), 'utf8');
const openAiReference = await readFile(new URL('../../docs/openai-compat.md', import.meta.url), 'utf8');
const geminiReference = await readFile(new URL('../../docs/gemini-compat.md', import.meta.url), 'utf8');
const adminReference = await readFile(new URL('../../docs/admin-api.md', import.meta.url), 'utf8');
/**
 * The OpenAI-compatible routes are documented in docs/openai-compat.md, the Gemini-native ones in
 * docs/gemini-compat.md, the operator console's in docs/admin-api.md (each as `### \`METHOD path\``),
 * the rest in docs/api.md.
 */
const ownReference = (path: string) =>
  path.startsWith('/v1/models') ||
  path.startsWith('/v1/images/') ||
  path.startsWith('/v1/chat/') ||
  path.startsWith('/v1/responses')
    ? openAiReference
    : path.startsWith('/v1beta/')
      ? geminiReference
      : path.startsWith('/api/admin/')
        ? adminReference
        : undefined;

describe('docs/api.md', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ startEngine: false });
  });
  after(async () => {
    await t.close();
  });

  test('has a section for every public operation of the OpenAPI document', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(document.paths)
      // The website's own API is documented in docs/website.md.
      .filter(([path]) => !path.startsWith('/web/api/'))
      .flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `## ${method.toUpperCase()} ${path}`),
      );
    assert.ok(operations.length >= 15, `found ${operations.length} operations`);
    const missing = operations.filter((heading) => {
      const own = ownReference(heading.split(' ')[2] ?? '');
      return own === undefined
        ? !reference.includes(`\n${heading}\n`)
        : !own.includes(`\n### \`${heading.slice('## '.length)}\``);
    });
    assert.deepEqual(missing, [], 'operations without a section in docs/api.md');
  });

  test('has a row for every error type, with its status', () => {
    for (const [type, status] of Object.entries(errorStatus)) {
      assert.match(reference, new RegExp(`\\n\\| ${status} \\| \`${type}\` \\|`), type);
    }
  });
});
