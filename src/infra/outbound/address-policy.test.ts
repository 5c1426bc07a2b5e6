import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidInput } from '../../base/domain/errors.js';
import { assertPublicAddress, parseAllowedHosts } from './address-policy.js';

describe('assertPublicAddress', () => {
  const refused = [
    '127.0.0.1',
    '127.1',
    '0x7f000001',
    '2130706433',
    '0177.0.0.1',
    '012.0.0.1',
    '0x7f.0.0.1',
    '0',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.0',
    '100.127.255.255',
    '198.18.0.1',
    '198.19.255.255',
    '240.0.0.1',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.1',
    '::',
    '::1',
    '[::1]',
    '::ffff:a9fe:a9fe',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '::8.8.8.8',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::1',
    '2002:7f00:1::1',
    '2001::1',
    '2001:db8::1',
    'fc00::1',
    'fd00::1',
    'fe80::1',
    'ff02::1',
    'not-an-address',
    '',
  ];
  for (const address of refused) {
    it(`refuses ${JSON.stringify(address)}`, () => {
      assert.throws(() => assertPublicAddress(address), InvalidInput);
    });
  }

  it('accepts public unicast addresses, including just outside the blocked ranges', () => {
    for (const address of [
      '8.8.8.8',
      '93.184.216.34',
      '100.63.255.255',
      '100.128.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.254',
      '::ffff:8.8.8.8',
      '2606:4700:4700::1111',
      '[2606:4700:4700::1111]',
      '2a00:1450:4001:80b::200e',
    ]) {
      assert.doesNotThrow(() => assertPublicAddress(address), address);
    }
  });
});

describe('parseAllowedHosts', () => {
  it('parses comma-separated host[:port] entries into canonical form', () => {
    assert.deepEqual(parseAllowedHosts(undefined), []);
    assert.deepEqual(parseAllowedHosts(''), []);
    assert.deepEqual(parseAllowedHosts(' LocalHost:8080 , minio ,[::1]:9000,127.1 ,'), [
      'localhost:8080',
      'minio',
      '[::1]:9000',
      '127.0.0.1',
    ]);
  });

  it('throws on malformed entries, naming them', () => {
    for (const bad of ['host:0', 'host:99999', 'host:abc', 'http://host', 'user@host', 'host/path']) {
      assert.throws(() => parseAllowedHosts(bad), new RegExp(bad.replace(/[/.?]/g, '\\$&')));
    }
  });
});
