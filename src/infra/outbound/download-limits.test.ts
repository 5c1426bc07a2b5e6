// The hostile corpus, part two: what the fetcher stops once connected (size, encodings, time,
// connection failures, statuses). The stand-ins and their checks: ./testing/stand-ins.ts.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { answer } from '../../../test/fakes/outbound/loopback.js';
import {
  fixtures,
  MAX_BYTES,
  registerStandIns,
  rejectsWith,
  route,
  SOURCE,
  setup,
  tempDir,
} from '../../../test/fakes/outbound/stand-ins.js';
import { DomainError } from '../../base/domain/errors.js';
import { createSafeFetcher } from './safe-fetcher.js';

registerStandIns();

describe('hostile corpus: size', () => {
  it('refuses a Content-Length over the cap before reading the body (413)', async () => {
    const { fetcher } = setup({ totalTimeoutMs: 20_000 });
    const started = Date.now();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/declared-huge', SOURCE),
      rejectsWith('too_large'),
    );
    assert.ok(Date.now() - started < 10_000, 'refused from the header, not after a timeout');
  });

  it('accepts exactly the cap and refuses one byte more without a length (413)', async () => {
    const { fetcher } = setup();
    const file = await fetcher.fetchToFile(`http://img.example.test/exact/${MAX_BYTES}`, SOURCE);
    assert.equal(file.bytes, MAX_BYTES);
    await file.cleanup();
    await assert.rejects(
      fetcher.fetchToFile(`http://img.example.test/chunked/${MAX_BYTES + 1}`, SOURCE),
      rejectsWith('too_large'),
    );
  });

  it('stops a chunked body with no length far over the cap (413)', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile(`http://img.example.test/chunked/${50 * MAX_BYTES}`, SOURCE),
      rejectsWith('too_large'),
    );
  });

  it('counts decoded bytes: a gzip bomb is refused although its wire size is tiny (413)', async () => {
    assert.ok((fixtures.gzipBomb as Buffer).length < MAX_BYTES / 4);
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/gzip-bomb', SOURCE),
      rejectsWith('too_large'),
    );
  });

  it('counts decoded bytes for brotli too (413)', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/br-bomb', SOURCE),
      rejectsWith('too_large'),
    );
  });

  it('decodes a gzip-encoded image honestly', async () => {
    const { fetcher } = setup();
    const file = await fetcher.fetchToFile('http://img.example.test/gzip-image', SOURCE);
    try {
      assert.deepEqual(await readFile(file.path), fixtures['image.png']);
      assert.equal(file.bytes, fixtures['image.png']?.length);
    } finally {
      await file.cleanup();
    }
  });

  it('answers 502 for a body that claims gzip but is not', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/bad-gzip', SOURCE),
      rejectsWith('fetch_failed'),
    );
  });

  it('takes no more than an understated Content-Length', async () => {
    const { fetcher } = setup();
    const file = await fetcher.fetchToFile('http://raw.example.test/understated', SOURCE);
    try {
      assert.equal(file.bytes, 100);
      assert.equal((await readFile(file.path)).length, 100);
    } finally {
      await file.cleanup();
    }
  });

  it('answers 502 for an overstated Content-Length (the peer hangs up early)', async () => {
    const { fetcher } = setup();
    await assert.rejects(
      fetcher.fetchToFile('http://raw.example.test/overstated', SOURCE),
      rejectsWith('fetch_failed'),
    );
  });
});

describe('hostile corpus: time and connection failures', () => {
  it('cuts off a server trickling bytes at the total timeout (502)', async () => {
    const { fetcher } = setup({ totalTimeoutMs: 400 });
    const started = Date.now();
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/trickle', SOURCE),
      rejectsWith('fetch_failed', /timed out/),
    );
    assert.ok(Date.now() - started < 8_000);
  });

  it('cuts off a server that never sends headers (502)', async () => {
    const { fetcher } = setup({ totalTimeoutMs: 400 });
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/hang', SOURCE),
      rejectsWith('fetch_failed', /timed out/),
    );
  });

  it('applies the connect timeout to a TLS handshake that never completes (502)', async () => {
    const { fetcher } = setup({ connectTimeoutMs: 300, totalTimeoutMs: 20_000 });
    const started = Date.now();
    await assert.rejects(
      fetcher.fetchToFile('https://silent.example.test/image.png', SOURCE),
      rejectsWith('fetch_failed', /Could not connect/),
    );
    assert.ok(Date.now() - started < 10_000, 'the connect timeout fired, not the total one');
  });

  it('reports a refused connection and a connect timeout with the same message', async () => {
    const { fetcher } = setup({ connectTimeoutMs: 300 });
    const refused = await fetcher
      .fetchToFile('http://closed.example.test/', SOURCE)
      .catch((err: unknown) => err);
    const timedOut = await fetcher
      .fetchToFile('https://silent.example.test/', SOURCE)
      .catch((err: unknown) => err);
    assert.ok(refused instanceof DomainError && timedOut instanceof DomainError);
    assert.deepEqual([refused.outcome, refused.message], [timedOut.outcome, timedOut.message]);
    assert.equal(refused.outcome, 'fetch_failed');
  });

  it('never reveals whether an internal port is open: open and closed read the same', async () => {
    // An internal address with a live server behind it, and one with nothing listening.
    const open = createSafeFetcher({
      tempDir,
      lookup: async () => [answer('10.0.0.7')],
      connectTarget: route,
    });
    const shut = createSafeFetcher({
      tempDir,
      lookup: async () => [answer('10.0.0.8')],
      connectTarget: route,
    });
    const a = await open.fetchToFile('http://intranet.example.test/', SOURCE).catch((err: unknown) => err);
    const b = await shut.fetchToFile('http://intranet.example.test/', SOURCE).catch((err: unknown) => err);
    assert.ok(a instanceof DomainError && b instanceof DomainError);
    assert.deepEqual([a.outcome, a.message], [b.outcome, b.message]);
    const c = await open.fetchToFile('http://127.0.0.1:22/', SOURCE).catch((err: unknown) => err);
    const d = await open.fetchToFile('http://127.0.0.1:23/', SOURCE).catch((err: unknown) => err);
    assert.ok(c instanceof DomainError && d instanceof DomainError);
    // The refusal echoes the port the caller wrote (the entry that would exempt it), nothing more.
    assert.deepEqual([c.outcome, c.message], [d.outcome, d.message.replace('127.0.0.1:23', '127.0.0.1:22')]);
  });

  it('answers 502 for non-2xx statuses', async () => {
    const { fetcher } = setup();
    for (const status of [404, 403, 500, 304]) {
      await assert.rejects(
        fetcher.fetchToFile(`http://img.example.test/status/${status}`, SOURCE),
        rejectsWith('fetch_failed', new RegExp(String(status))),
      );
    }
  });

  it("stops when the caller's signal aborts", async () => {
    const { fetcher } = setup();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(
      fetcher.fetchToFile('http://img.example.test/trickle', {
        subject: 'source_url',
        signal: controller.signal,
      }),
      rejectsWith('fetch_failed', /cancelled/),
    );
  });
});
