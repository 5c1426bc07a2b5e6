import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from './config.js';
import { fastifyTrustProxy, parseTrustProxy, TRUST_PROXY_TRUE_WARNING } from './trust-proxy.js';

const configWith = (value: string) => loadConfig({ ATELIER_TRUST_PROXY: value, LOG_LEVEL: 'silent' });

describe('ATELIER_TRUST_PROXY', () => {
  test('unset, false or 0 trusts no proxy', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    for (const value of ['', 'false', '0', ' FALSE '])
      assert.equal(configWith(value).trustProxy, false, value);
    assert.deepEqual(loadConfig({}).warnings, []);
  });

  test("a number of hops, or the proxies' addresses and CIDR ranges", () => {
    assert.equal(configWith('2').trustProxy, 2);
    assert.deepEqual(configWith(' 10.0.0.0/8, 192.168.1.5 ,fd00::/8,loopback').trustProxy, [
      '10.0.0.0/8',
      '192.168.1.5',
      'fd00::/8',
      'loopback',
    ]);
  });

  test('true is one hop, with a warning naming the explicit forms', () => {
    const config = configWith('true');
    assert.equal(config.trustProxy, 1);
    assert.deepEqual(config.warnings, [TRUST_PROXY_TRUE_WARNING]);
    assert.match(TRUST_PROXY_TRUE_WARNING, /number of proxies.*or their addresses/);
  });

  test('anything else is refused at start, naming the accepted forms', () => {
    for (const value of ['yes', '10.0.0.0/33', '10.0.0.0/8/1', '300.1.1.1', 'proxy.internal', '-1', '33']) {
      assert.throws(
        () => configWith(value),
        /ATELIER_TRUST_PROXY: must be false, the number of trusted proxy hops/,
        value,
      );
    }
    assert.throws(() => configWith('0.0.0.0/0'), /trusts every address/);
    assert.throws(() => configWith('::/0'), /trusts every address/);
  });

  test('hops become the rule Fastify applies to them: the nearest n addresses are proxies', () => {
    const trust = fastifyTrustProxy(1);
    assert.equal(typeof trust, 'function');
    if (typeof trust !== 'function') return;
    assert.deepEqual(
      [0, 1, 2].map((hop) => trust('203.0.113.1', hop)),
      [true, false, false],
    );
    assert.deepEqual(fastifyTrustProxy(['10.0.0.0/8']), ['10.0.0.0/8']);
    assert.equal(fastifyTrustProxy(false), false);
    assert.deepEqual(parseTrustProxy('1'), { value: 1 });
  });
});
