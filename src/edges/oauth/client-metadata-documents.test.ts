import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  cacheMsOf,
  createClientMetadataDocuments,
  type FetchedDocument,
  isUrlClientId,
} from './client-metadata-documents.js';

const URL_ID = 'https://app.example/oauth/client.json';

describe('client ID metadata documents: the rules', () => {
  let dir = '';
  let now = 0;
  let fetches: string[] = [];
  let next: { body: string; contentType?: string; cacheControl?: string } = { body: '{}' };
  const documents = createClientMetadataDocuments({
    now: () => now,
    fetch: async (url) => {
      fetches.push(url);
      const path = join(dir, `doc-${fetches.length}.json`);
      await writeFile(path, next.body);
      const fetched: FetchedDocument = { path, cleanup: () => rm(path, { force: true }) };
      return {
        ...fetched,
        contentType: next.contentType ?? 'application/json',
        ...(next.cacheControl === undefined ? {} : { cacheControl: next.cacheControl }),
      };
    },
  });
  const serve = (doc: Record<string, unknown>, cacheControl?: string) => {
    next = { body: JSON.stringify(doc), ...(cacheControl ? { cacheControl } : {}) };
  };
  const valid = { client_id: URL_ID, client_name: 'App', redirect_uris: ['https://app.example/cb'] };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'atelier-cimd-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a URL client id is told from a registered one', () => {
    assert.equal(isUrlClientId(URL_ID), true);
    assert.equal(isUrlClientId('http://x.example/a'), true);
    assert.equal(isUrlClientId('3f0c1d52-3b8e-4d8f-9a53-0e1f4c2b7a61'), false);
    assert.equal(isUrlClientId('no scheme here'), false);
  });

  test('the URL itself: https, a path, no dot segments, fragment or credentials (nothing fetched)', async () => {
    fetches = [];
    for (const [id, problem] of [
      ['http://app.example/client.json', /not https/],
      ['https://app.example', /no path/],
      ['https://app.example/', /no path/],
      ['https://app.example/a/../client.json', /path segments/],
      ['https://app.example/./client.json', /path segments/],
      ['https://app.example/client.json#x', /fragment/],
      ['https://user:pw@app.example/client.json', /credentials/],
    ] as const) {
      assert.match(String(await documents.clientOf(id)), problem, id);
    }
    assert.deepEqual(fetches, []);
  });

  test('the document: its own URL, a name, redirect URIs, no secret, no auth method but none', async () => {
    for (const [doc, problem] of [
      [{ ...valid, client_id: 'https://app.example/other.json' }, /different client_id/],
      [{ ...valid, client_name: '  ' }, /no client_name/],
      [{ ...valid, redirect_uris: [] }, /no redirect_uris/],
      [{ ...valid, redirect_uris: ['not a url'] }, /no redirect_uris/],
      [{ ...valid, client_secret: 'x' }, /client_secret/],
      [{ ...valid, token_endpoint_auth_method: 'client_secret_basic' }, /only "none"/],
    ] as const) {
      serve(doc, 'no-store');
      assert.match(String(await documents.clientOf(URL_ID)), problem, JSON.stringify(doc));
    }
    next = { body: '[1, 2]', cacheControl: 'no-store' };
    assert.match(String(await documents.clientOf(URL_ID)), /not a JSON object/);
    next = { body: JSON.stringify(valid), contentType: 'text/plain', cacheControl: 'no-store' };
    assert.match(String(await documents.clientOf(URL_ID)), /not served as JSON/);
    next = { body: JSON.stringify(valid), contentType: 'application/oauth-client+json; charset=utf-8' };
    next.cacheControl = 'no-store';
    const client = await documents.clientOf(URL_ID);
    assert.equal(typeof client === 'string' ? client : client.token_endpoint_auth_method, 'none');
  });

  test('kept per Cache-Control within a day; failures never kept', async () => {
    assert.equal(cacheMsOf(undefined), 5 * 60_000);
    assert.equal(cacheMsOf('public, max-age=60'), 60_000);
    assert.equal(cacheMsOf('max-age=99999999'), 24 * 60 * 60_000);
    assert.equal(cacheMsOf('no-store'), 0);
    assert.equal(cacheMsOf('private, max-age=600'), 0);
    assert.equal(cacheMsOf('max-age=abc'), 5 * 60_000);

    const id = 'https://app.example/kept.json';
    fetches = [];
    serve({ ...valid, client_id: id, client_name: '' }, 'max-age=600');
    assert.equal(typeof (await documents.clientOf(id)), 'string');
    serve({ ...valid, client_id: id }, 'max-age=600');
    assert.equal(typeof (await documents.clientOf(id)), 'object');
    now += 599_000;
    assert.equal(typeof (await documents.clientOf(id)), 'object');
    assert.equal(fetches.length, 2, 'the failure was read again; the good document then kept');
    now += 2_000;
    await documents.clientOf(id);
    assert.equal(fetches.length, 3, 'read again once its max-age passed');
  });
});
