import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type InAppRequest, inAppFetch } from './in-app-fetch.js';

describe('inAppFetch', () => {
  const seen: InAppRequest[] = [];
  const fetchInApp = inAppFetch({
    publicBaseUrl: 'https://img.example.com/atelier',
    remoteAddress: '203.0.113.7',
    dispatch: async (request) => {
      seen.push(request);
      return {
        statusCode: 201,
        headers: { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] },
        rawPayload: Buffer.from('{"ok":true}'),
      };
    },
    followRedirect: async () => {
      throw new Error('not expected');
    },
  });

  it('hands a request under the public base URL to the app, path without the prefix', async () => {
    seen.length = 0;
    const response = await fetchInApp('https://img.example.com/atelier/api/v1/generate?x=1', {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: '{"prompt":"p"}',
    });
    assert.equal(response.status, 201);
    assert.deepEqual(await response.json(), { ok: true });
    assert.deepEqual(seen, [
      {
        method: 'POST',
        url: '/api/v1/generate?x=1',
        headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
        payload: '{"prompt":"p"}',
        remoteAddress: '203.0.113.7',
      },
    ]);
  });

  it('refuses any other URL: the tools fetch nothing outside this Atelier', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'https://img.example.com/other/files/a.png',
      'https://img.example.com.evil.test/atelier/files/a.png',
      'http://img.example.com/atelier/files/a.png',
    ]) {
      await assert.rejects(fetchInApp(url), /not under https:\/\/img\.example\.com\/atelier/, url);
    }
  });

  it('passes the MCP request’s traceparent on to each call: a tool’s generation joins the agent’s trace', async () => {
    const calls: InAppRequest[] = [];
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const traced = inAppFetch({
      publicBaseUrl: 'https://img.example.com',
      traceparent,
      dispatch: async (request) => {
        calls.push(request);
        return { statusCode: 200, headers: {}, rawPayload: Buffer.from('{}') };
      },
    });
    await traced('https://img.example.com/api/v1/generate', { method: 'POST', body: '{}' });
    assert.equal(calls[0]?.headers.traceparent, traceparent);
  });
});
