import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canIssue, oauthRoutesOf, resourceMetadataUrlOf } from './oauth-server.js';

test('sign-in is offered where the public base URL can be an issuer: https or loopback, at a root', () => {
  assert.equal(canIssue('https://atelier.example.com'), true);
  assert.equal(canIssue('http://127.0.0.1:8080'), true);
  assert.equal(canIssue('http://localhost:8080'), true);
  assert.equal(canIssue('http://atelier.lan:8080'), false);
  assert.equal(canIssue('https://example.com/atelier'), false);
});

test('the protected-resource metadata is at the path-specific well-known, and at the root one too', () => {
  const mcp = 'https://atelier.example.com/mcp';
  assert.equal(
    resourceMetadataUrlOf(mcp),
    'https://atelier.example.com/.well-known/oauth-protected-resource/mcp',
  );
  const urls = oauthRoutesOf(mcp).map((route) => route.url);
  assert.ok(urls.includes('/.well-known/oauth-protected-resource/mcp'));
  assert.ok(urls.includes('/.well-known/oauth-protected-resource'));
  assert.ok(urls.includes('/.well-known/oauth-authorization-server'));
});

test('the protected-resource metadata URL is the one the SDK computes, with a path and at a root', async () => {
  const { getOAuthProtectedResourceMetadataUrl } = await import(
    '@modelcontextprotocol/sdk/server/auth/router.js'
  );
  for (const mcp of [
    'https://atelier.example.com/mcp',
    'http://127.0.0.1:8080/',
    'https://a.example/x/mcp?q=1',
  ]) {
    assert.equal(resourceMetadataUrlOf(mcp), getOAuthProtectedResourceMetadataUrl(new URL(mcp)), mcp);
  }
});
