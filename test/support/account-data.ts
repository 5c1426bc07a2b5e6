import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { dialectOf } from '../../src/infra/store/database.js';
import { bearer, makePng, pollUntilFinal } from './api-helpers.js';
import type { TestApp } from './test-server.js';

/**
 * What the export and erase tests make and look for (issue 47): an account's works and uploads
 * through the API, and every row of every table of the store.
 */

/** A finished work of the key's account: its id, its task and the task's result URL. */
export async function makeWork(t: TestApp, key: string, payload: Record<string, unknown>) {
  const answer = await t.app.inject({
    method: 'POST',
    url: '/api/v1/generate',
    headers: bearer(key),
    payload: { imageSize: '1K', ...payload },
  });
  assert.equal(answer.statusCode, 200, answer.body);
  const [taskId] = (answer.json() as { task_ids: string[] }).task_ids as [string];
  const { final } = await pollUntilFinal(t.app, key, taskId);
  assert.equal(final.status, 'completed');
  const history = (
    await t.app.inject({ method: 'GET', url: '/api/v1/history?limit=1', headers: bearer(key) })
  ).json() as { items: Array<{ id: string }> };
  return { id: history.items[0]?.id as string, taskId, url: final.imageUrl as string };
}

/** An upload of the key's account: its asset id and URL. */
export async function upload(t: TestApp, key: string, png: Buffer) {
  const answer = await t.app.inject({
    method: 'POST',
    url: '/api/v1/upload',
    headers: { ...bearer(key), 'content-type': 'image/png' },
    payload: png,
  });
  assert.equal(answer.statusCode, 200, answer.body);
  const url = (answer.json() as { url: string }).url;
  const assets = (
    await t.app.inject({ method: 'GET', url: '/api/v1/assets?kind=upload', headers: bearer(key) })
  ).json() as { items: Array<{ id: string; url: string }> };
  const asset = assets.items.find((a) => a.url === url);
  assert.ok(asset);
  return { id: asset.id, url };
}

/** The blob key of a /files URL. */
export const keyOf = (url: string) => new URL(url).pathname.slice('/files/'.length);

/**
 * An account with something in most of its tables: works (one made from an upload), uploads (one
 * the same bytes as `other`'s), a collection, a star, a rendition, an extra API key, a budget, a
 * webhook secret. Answers its files.
 */
export async function seedAccount(t: TestApp, account: { id: string; apiKey: string }, otherKey: string) {
  const key = account.apiKey;
  const own = await upload(t, key, await makePng(64, 48, { r: 200, g: 20, b: 20 }));
  const sharedPng = await makePng(48, 64, { r: 5, g: 6, b: 7 });
  const shared = await upload(t, key, sharedPng);
  const theirs = await upload(t, otherKey, sharedPng);
  assert.equal(shared.url, theirs.url, 'the same bytes are one file');
  const plain = await makeWork(t, key, { prompt: 'a quiet harbour at dawn' });
  const edit = await makeWork(t, key, {
    prompt: 'add a red boat',
    mode: 'edit',
    imageUrls: [own.url],
    aspect: '4:3',
  });
  const rendition = await t.app.inject({
    method: 'GET',
    url: `${new URL(plain.url).pathname}?w=320&format=webp`,
  });
  assert.equal(rendition.statusCode, 200, rendition.body);
  const collection = await t.app.inject({
    method: 'POST',
    url: '/api/v1/collections',
    headers: bearer(key),
    payload: { name: 'Harbours' },
  });
  assert.equal(collection.statusCode, 201, collection.body);
  const collectionId = (collection.json() as { id: string }).id;
  for (const [method, url] of [
    ['PUT', `/api/v1/collections/${collectionId}/items/${plain.id}`],
    ['PUT', `/api/v1/generations/${edit.id}/star`],
  ] as const) {
    const answer = await t.app.inject({ method, url, headers: bearer(key) });
    assert.ok(answer.statusCode < 300, answer.body);
  }
  await t.core.accounts.createKey(account.id, { name: 'dashboard', scope: 'read' });
  await t.core.budgets.set(account.id, { dailyMicros: 5_000_000 });
  await t.core.webhooks.rotateSecret(account.id);
  return { own, shared, theirs, plain, edit };
}

/** Every table of the store's schema (derived from the store, so a table added later is in it). */
export async function storeTables(t: TestApp): Promise<string[]> {
  const { db } = t.core.resources;
  const rows =
    dialectOf(db) === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db);
  return rows.rows.map((row) => row.name).sort();
}

/** Each row of any table in which one of `needles` appears (in any column), as `table: row`. */
export async function rowsMentioning(t: TestApp, needles: string[]): Promise<string[]> {
  const { db } = t.core.resources;
  const found: string[] = [];
  for (const table of await storeTables(t)) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    for (const row of rows.rows) {
      const text = Object.values(row)
        .map((value) => (Buffer.isBuffer(value) ? value.toString('latin1') : String(value)))
        .join('\u0000');
      if (needles.some((needle) => text.includes(needle))) found.push(`${table}: ${JSON.stringify(row)}`);
    }
  }
  return found;
}
