import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { type AccessFields, accessLine } from './access-log.js';

/** A pino logger writing into an array, with the redaction the app configures. */
function capturingLogger() {
  const lines: string[] = [];
  const logger = pino(
    { redact: { paths: ['req.headers.authorization', '*.apiKey'], censor: '[redacted]' } },
    { write: (line: string) => lines.push(line) },
  );
  return { logger, lines };
}

const withoutTime = (line: string) => {
  const { time, ...rest } = JSON.parse(line) as { time: number };
  assert.equal(typeof time, 'number');
  return rest;
};

test('the access line is the line pino writes for the same fields, quotes and all', () => {
  const { logger, lines } = capturingLogger();
  const cases: AccessFields[] = [
    {
      reqId: 'req_1',
      method: 'GET',
      url: '/api/v1/tasks/tsk_1',
      statusCode: 200,
      responseTimeMs: 0.4,
      accountId: 'acc_1',
    },
    {
      reqId: 'req_2',
      method: 'POST',
      url: '/api/v1/history?q="a\\\\b"\n\u2028é',
      statusCode: 401,
      responseTimeMs: 12,
    },
  ];
  for (const fields of cases) {
    logger.info(fields, 'request completed');
    const ours = accessLine(logger as unknown as FastifyBaseLogger, fields);
    assert.ok(ours?.endsWith('\n'));
    assert.deepEqual(withoutTime(ours ?? ''), withoutTime(lines.at(-1) ?? ''));
    // Same keys in the same order: log shippers and people read the two the same way.
    assert.deepEqual(Object.keys(JSON.parse(ours ?? '{}')), Object.keys(JSON.parse(lines.at(-1) ?? '{}')));
  }
});

test('a logger that is not pino gets no line (the controller then goes through it)', () => {
  assert.equal(
    accessLine({} as FastifyBaseLogger, {
      reqId: 'r',
      method: 'GET',
      url: '/',
      statusCode: 200,
      responseTimeMs: 1,
    }),
    undefined,
  );
});
