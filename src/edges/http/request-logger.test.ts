import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { lazyRequestLogger } from './request-logger.js';

/** A pino logger like the core's (redaction on) writing its lines into an array; `child` counted. */
function capturingLogger(level = 'info') {
  const lines: unknown[] = [];
  const logger = pino(
    { level, redact: { paths: ['*.apiKey'], censor: '[redacted]' }, timestamp: false },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  let children = 0;
  const child = logger.child;
  logger.child = function (this: typeof logger, ...args: Parameters<typeof child>) {
    children++;
    return child.apply(this, args);
  } as typeof logger.child;
  return { logger: logger as unknown as FastifyBaseLogger, lines, made: () => children };
}

test("a request's logger writes the child's lines, and makes the child only when it logs", () => {
  const lazy = capturingLogger();
  const eager = capturingLogger();
  const request = lazyRequestLogger(lazy.logger, { reqId: 'req_1' }, {});
  assert.equal(lazy.made(), 0, 'no child for a request that logs nothing');
  assert.equal(request.level, 'info');
  request.info({ taskIds: ['tsk_a'], body: { apiKey: 'atl_secret' } }, 'tasks created');
  request.error(new Error('boom'));
  request.debug('below the level');
  assert.equal(lazy.made(), 1, 'one child, made at the first line');
  const child = eager.logger.child({ reqId: 'req_1' });
  child.info({ taskIds: ['tsk_a'], body: { apiKey: 'atl_secret' } }, 'tasks created');
  child.error(new Error('boom'));
  const withoutStacks = (lines: unknown[]) =>
    lines.map((line) => ({ ...(line as object), err: undefined, stack: undefined }));
  assert.deepEqual(withoutStacks(lazy.lines), withoutStacks(eager.lines));
  assert.equal((lazy.lines[0] as { body: { apiKey: string } }).body.apiKey, '[redacted]');
  assert.equal((lazy.lines[1] as { reqId: string }).reqId, 'req_1');
});

test("a request's logger follows its options' level, and a level set on it", () => {
  const { logger, lines } = capturingLogger('info');
  const quiet = lazyRequestLogger(logger, { reqId: 'req_2' }, { level: 'warn' });
  assert.equal(quiet.level, 'warn');
  quiet.info('dropped');
  quiet.warn('kept');
  const loud = lazyRequestLogger(logger, { reqId: 'req_3' }, {});
  loud.level = 'debug';
  loud.debug('now kept');
  assert.deepEqual(
    lines.map((line) => (line as { msg: string }).msg),
    ['kept', 'now kept'],
  );
  assert.equal(logger.level, 'info', 'the root logger keeps its level');
  const nested = loud.child({ step: 'x' });
  nested.debug('nested');
  assert.deepEqual(lines.at(-1), {
    level: 20,
    pid: process.pid,
    hostname: (lines[0] as { hostname: string }).hostname,
    reqId: 'req_3',
    step: 'x',
    msg: 'nested',
  });
});
