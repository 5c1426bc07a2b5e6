// The hostile corpus, part one: what the fetcher refuses to dial (literal addresses, URL policy,
// DNS answers, redirects, the allow-list). The stand-ins and their checks: ./testing/stand-ins.ts.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import {
  fixtures,
  PUBLIC_V4,
  PUBLIC_V6,
  registerStandIns,
  rejectsWith,
  SOURCE,
  setup,
  spy,
  tempDir,
  trap,
  web,
} from '../../../test/fakes/outbound/stand-ins.js';
import { parseAllowedHosts } from './address-policy.js';
import { createSafeFetcher } from './safe-fetcher.js';

registerStandIns();

describe('hostile corpus: literal addresses in source_url (400, no lookup, no connection)', () => {
  const urls = [
    'http://127.0.0.1/',
    'http://127.1/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://012.0.0.1/', // = 10.0.0.1
    'http://0x7f.0.0.1/',
    'http://127.000.000.001/',
    'http://0/',
    'http://0.0.0.0/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://198.18.0.1/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
    'http://224.0.0.251/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://[::1]/',
    'http://[::]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://[2001::1]/',
    'http://[fc00::1]/',
    'http://[fd00:ec2::254]/',
    'http://[fe80::1]/',
    'http://[ff02::1]/',
    'https://127.0.0.1/',
    'https://[::ffff:169.254.169.254]/',
  ];
  for (const url of urls) {
    it(`refuses ${url}`, async () => {
      const { fetcher, resolver, connects } = setup();
      await assert.rejects(
        fetcher.fetchToFile(url, SOURCE),
        rejectsWith('invalid_input', /not point to a public address/),
      );
      assert.deepEqual(resolver.calls, [], 'a literal address never goes to the resolver');
      assert.deepEqual(connects, []);
    });
  }
});

describe('hostile corpus: URL policy (400)', () => {
  const cases: Array<[string, RegExp]> = [
    ['ftp://img.example.test/a.png', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['gopher://img.example.test/', /http or https/],
    ['data:image/png;base64,iVBORw0KGgo=', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['ws://img.example.test/', /http or https/],
    ['http://user:secret@img.example.test/image.png', /credentials/],
    ['http://user@img.example.test/image.png', /credentials/],
    ['http://:secret@img.example.test/image.png', /credentials/],
    ['http://img.example.test:8080/image.png', /default port/],
    ['http://img.example.test:443/image.png', /default port/],
    ['https://img.example.test:80/image.png', /default port/],
    ['http://127.0.0.1:6379/', /default port/],
    ['not a url', /valid absolute URL/],
    ['/image.png', /valid absolute URL/],
    ['', /valid absolute URL/],
  ];
  for (const [url, message] of cases) {
    it(`refuses ${JSON.stringify(url)}`, async () => {
      const { fetcher, resolver, connects } = setup();
      await assert.rejects(fetcher.fetchToFile(url, SOURCE), rejectsWith('invalid_input', message));
      assert.deepEqual(resolver.calls, []);
      assert.deepEqual(connects, []);
    });
  }
});

describe('hostile corpus: DNS answers', () => {
  for (const host of [
    'internal.example.test',
    'loopback.example.test',
    'metadata.example.test',
    'cgnat.example.test',
    'mapped.example.test',
    'nat64.example.test',
    'ula.example.test',
  ]) {
    it(`refuses a name resolving to a non-public address (${host})`, async () => {
      const { fetcher, resolver, connects } = setup();
      await assert.rejects(
        fetcher.fetchToFile(`http://${host}/image.png`, SOURCE),
        rejectsWith('invalid_input', /not point to a public address/),
      );
      assert.deepEqual(resolver.calls, [host]);
      assert.deepEqual(connects, []);
    });
  }

  for (const host of ['mixed.example.test', 'mixed-v6.example.test']) {
    it(`refuses mixed public and private answers (${host}) without connecting anywhere`, async () => {
      const { fetcher, connects } = setup();
      await assert.rejects(
        fetcher.fetchToFile(`http://${host}/image.png`, SOURCE),
        rejectsWith('invalid_input'),
      );
      assert.deepEqual(connects, []);
    });
  }

  it('survives rebinding: one lookup, and the socket goes only to the vetted address', async () => {
    const { fetcher, resolver, connects } = setup();
    const file = await fetcher.fetchToFile('http://rebind.example.test/image.png', SOURCE);
    try {
      assert.deepEqual(resolver.calls, ['rebind.example.test'], 'exactly one lookup');
      assert.deepEqual(connects, [{ address: PUBLIC_V4, port: 80 }]);
      assert.deepEqual(spy.destinations, [{ host: '127.0.0.1', port: web.port }]);
      assert.deepEqual(await readFile(file.path), fixtures['image.png']);
    } finally {
      await file.cleanup();
    }
  });

  it('fetches over a public IPv6 answer', async () => {
    const { fetcher, connects } = setup();
    const file = await fetcher.fetchToFile('http://v6.example.test/image.png', SOURCE);
    await file.cleanup();
    assert.deepEqual(connects, [{ address: PUBLIC_V6, port: 80 }]);
  });

  it('answers 502 when the name does not resolve or resolves to nothing', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://nxdomain.example.test/', SOURCE),
      rejectsWith('fetch_failed', /resolved/),
    );
    await assert.rejects(
      fetcher.fetchToFile('http://empty.example.test/', SOURCE),
      rejectsWith('fetch_failed', /resolved/),
    );
  });

  it('refuses localhost through the real system resolver', async () => {
    const { fetcher } = setup({ lookup: undefined });
    await assert.rejects(
      fetcher.fetchToFile('http://localhost/', SOURCE),
      rejectsWith('invalid_input', /public address/),
    );
  });
});

describe('hostile corpus: redirects', () => {
  const refusedTargets: Array<[string, RegExp]> = [
    ['http://127.0.0.1/', /public address/],
    ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', /public address/],
    ['http://[::ffff:a9fe:a9fe]/', /public address/],
    ['http://2130706433/', /public address/],
    ['https://127.0.0.1/', /public address/],
    ['http://internal.example.test/', /public address/],
    ['http://metadata.example.test/', /public address/],
    ['file:///etc/passwd', /http or https/],
    ['gopher://127.0.0.1:6379/_FLUSHALL', /http or https/],
    ['http://user:pw@img.example.test/image.png', /credentials/],
    [`http://img.example.test:${'8080'}/`, /default port/],
  ];
  for (const [target, message] of refusedTargets) {
    it(`refuses a public host redirecting to ${target}`, async () => {
      const { fetcher, connects } = setup();
      const url = `http://img.example.test/redirect?to=${encodeURIComponent(target)}`;
      await assert.rejects(fetcher.fetchToFile(url, SOURCE), rejectsWith('invalid_input', message));
      assert.deepEqual(
        connects,
        [{ address: PUBLIC_V4, port: 80 }],
        'only the first, public hop was dialled',
      );
    });
  }

  for (const status of [301, 302, 303, 307, 308]) {
    it(`follows a ${status} to a public address, re-resolving the new host`, async () => {
      const { fetcher, resolver } = setup();
      const to = encodeURIComponent('http://v6.example.test/image.png');
      const file = await fetcher.fetchToFile(
        `http://img.example.test/redirect?status=${status}&to=${to}`,
        SOURCE,
      );
      await file.cleanup();
      assert.deepEqual(resolver.calls, ['img.example.test', 'v6.example.test']);
    });
  }

  it('follows three redirects and refuses the fourth (502)', async () => {
    const { fetcher, connects } = setup();
    const file = await fetcher.fetchToFile('http://img.example.test/chain/3', SOURCE);
    await file.cleanup();
    assert.equal(connects.length, 4);
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/chain/4', SOURCE),
      rejectsWith('fetch_failed', /redirect/),
    );
  });

  it('refuses a redirect loop and a redirect without Location (502)', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/loop', SOURCE),
      rejectsWith('fetch_failed', /redirect/),
    );
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/no-location', SOURCE),
      rejectsWith('fetch_failed'),
    );
  });

  it('lets maxRedirects be lowered', async () => {
    const { fetcher } = setup({ maxRedirects: 0 });
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/chain/1', SOURCE),
      rejectsWith('fetch_failed'),
    );
  });
});

describe('ATELIER_UPLOAD_ALLOWED_HOSTS', () => {
  it('exempts a named host:port from the address check, for local development', async () => {
    const fetcher = createSafeFetcher({ tempDir, allowedHosts: parseAllowedHosts(`127.0.0.1:${web.port}`) });
    const file = await fetcher.fetchToFile(`http://127.0.0.1:${web.port}/image.png`, SOURCE);
    assert.deepEqual(await readFile(file.path), fixtures['image.png']);
    await file.cleanup();
  });

  it('a bare host exempts every port of that host, by the name written in the URL', async () => {
    const fetcher = createSafeFetcher({ tempDir, allowedHosts: parseAllowedHosts('127.0.0.1,localhost') });
    for (const url of [`http://127.0.0.1:${web.port}/image.png`, `http://localhost:${web.port}/image.png`]) {
      const file = await fetcher.fetchToFile(url, SOURCE);
      assert.deepEqual(await readFile(file.path), fixtures['image.png'], url);
      await file.cleanup();
    }
  });

  it('matches the host as written, not what it resolves to; the refusal names the entry to add', async () => {
    const byName = createSafeFetcher({ tempDir, allowedHosts: parseAllowedHosts(`localhost:${web.port}`) });
    await assert.rejects(
      byName.fetchToFile(`http://127.0.0.1:${web.port}/image.png`, SOURCE),
      rejectsWith(
        'invalid_input',
        new RegExp(
          `^source_url must use the default port \\(80 for http, 443 for https\\); to allow it in development, add "127\\.0\\.0\\.1:${web.port}" to ATELIER_UPLOAD_ALLOWED_HOSTS$`,
        ),
      ),
    );
    const none = createSafeFetcher({ tempDir });
    await assert.rejects(
      none.fetchToFile('http://localhost/image.png', SOURCE),
      rejectsWith(
        'invalid_input',
        /^source_url does not point to a public address; to allow it in development, add "localhost:80" to ATELIER_UPLOAD_ALLOWED_HOSTS$/,
      ),
    );
    await assert.rejects(
      none.fetchToFile('https://[::1]:8443/', SOURCE),
      rejectsWith('invalid_input', /add "\[::1\]:8443" to ATELIER_UPLOAD_ALLOWED_HOSTS$/),
    );
  });

  it('exempts only what it names: other hosts, other ports, schemes and credentials stay refused', async () => {
    const fetcher = createSafeFetcher({ tempDir, allowedHosts: [`127.0.0.1:${web.port}`, 'minio'] });
    await assert.rejects(
      fetcher.fetchToFile(`http://127.0.0.2:${web.port}/`, SOURCE),
      rejectsWith('invalid_input'),
    );
    await assert.rejects(
      fetcher.fetchToFile(`http://127.0.0.1:${trap.port}/`, SOURCE),
      rejectsWith('invalid_input'),
    );
    await assert.rejects(fetcher.fetchToFile('http://127.0.0.1/', SOURCE), rejectsWith('invalid_input'));
    await assert.rejects(
      fetcher.fetchToFile(`ftp://127.0.0.1:${web.port}/`, SOURCE),
      rejectsWith('invalid_input'),
    );
    await assert.rejects(
      fetcher.fetchToFile(`http://u:p@127.0.0.1:${web.port}/`, SOURCE),
      rejectsWith('invalid_input'),
    );
    await assert.rejects(
      fetcher.fetchToFile(`http://minio.example.test:${web.port}/`, SOURCE),
      rejectsWith('invalid_input', /default port/),
    );
  });
});
