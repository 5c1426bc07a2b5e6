import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { DEFAULT_CATALOG } from '../../src/capabilities/catalog/catalog.js';
import { bearer, makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * POST /v1/chat/completions on a catalog whose model blends (issue 44): a follow-up turn with an
 * image of its own and the previous assistant image is a fusion that still names its parent.
 */

type ChatAnswer = { choices: Array<{ message: Record<string, unknown> }> };

describe('chat completions on a catalog with fusion', () => {
  let t: TestApp;
  let apiKey: string;
  let catalogDir: string;

  before(async () => {
    catalogDir = await mkdtemp(join(tmpdir(), 'atelier-chat-fusion-'));
    const path = join(catalogDir, 'catalog.json');
    const [base, second, ...rest] = DEFAULT_CATALOG.models;
    // The second model draws from text only (it cannot edit).
    const models = [{ ...base, modes: ['text', 'edit', 'fusion'] }, { ...second, modes: ['text'] }, ...rest];
    await writeFile(path, JSON.stringify({ models }));
    t = await createTestApp({ listen: true, env: { ATELIER_CATALOG: path } });
    ({ apiKey } = await t.createAccount());
  });
  after(async () => {
    await t?.close();
    await rm(catalogDir, { recursive: true, force: true });
  });

  test('the parent and the user’s own image blend: a fusion, the parent first, named as parent; a model without edit starts afresh', async () => {
    const client = new OpenAI({ baseURL: `${t.baseUrl}/v1`, apiKey, maxRetries: 0 });
    const ask = (messages: unknown[], model = DEFAULT_CATALOG.models[0]?.id) =>
      client.chat.completions.create({
        model,
        messages,
        modalities: ['image', 'text'],
      } as never) as unknown as Promise<ChatAnswer>;
    const items = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/v1/history?limit=10', headers: bearer(apiKey) })).json()
        .items as Array<Record<string, unknown>>;
    const first = await ask([{ role: 'user', content: 'a blue vase' }]);
    const [parent] = await items();
    const png = `data:image/png;base64,${(await makePng(64, 64, { r: 250, g: 200, b: 0 })).toString('base64')}`;
    await ask([
      { role: 'user', content: 'a blue vase' },
      first.choices[0]?.message,
      {
        role: 'user',
        content: [
          { type: 'text', text: 'with these flowers' },
          { type: 'image_url', image_url: { url: png } },
        ],
      },
    ]);
    const [blend] = await items();
    assert.equal(blend?.mode, 'fusion');
    assert.equal(blend?.parentId, parent?.id);
    const refs = blend?.refs as string[];
    assert.equal(refs.length, 2);
    assert.equal(
      refs[0],
      (parent?.images as string[] | undefined)?.[0],
      "the parent's image is the first reference",
    );

    // A model that cannot edit ignores the earlier assistant image: a new image from the text.
    await ask(
      [
        { role: 'user', content: 'a blue vase' },
        first.choices[0]?.message,
        { role: 'user', content: 'a red one' },
      ],
      DEFAULT_CATALOG.models[1]?.id,
    );
    const [fresh] = await items();
    assert.equal(fresh?.mode, 'text');
    assert.equal(fresh?.parentId ?? null, null);
  });
});
