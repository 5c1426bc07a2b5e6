import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { OpenAPIV3_1 } from 'openapi-types';
import { bearer } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';
import { type Answer, fuzzDocument, type GeneratedRequest, type Schema } from './document-oracle.js';

// Issue 49: the document fuzzer's oracles can fail. A copy of the served document is broken the way
// the findings were — a body field's constraint the handler enforces left out, a rule between
// fields left out, a status the route answers left undocumented — and the fuzzer, run on that one operation, reports it; on the
// document as served, the same run reports nothing.
const SEED = 20261125;
const GENERATE = '/api/v1/generate';

describe('the document fuzzer reports a schema looser than the server', { timeout: 120_000 }, () => {
  let t: TestApp;
  let doc: OpenAPIV3_1.Document;
  let headers: Record<string, string>;

  before(async () => {
    t = await createTestApp({ startEngine: false });
    headers = { ...bearer((await t.createAccount()).apiKey), 'content-type': 'application/json' };
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  });
  after(() => t.close());

  async function send(method: string, request: GeneratedRequest): Promise<Answer> {
    const answer = await t.app.inject({
      method: method as 'POST',
      url: request.url,
      headers,
      payload: request.body?.text,
    });
    return {
      status: answer.statusCode,
      contentType: String(answer.headers['content-type']),
      text: answer.body,
    };
  }

  /** The document with only POST /api/v1/generate, changed by `change` (on a copy). */
  function generateOnly(change: (copy: OpenAPIV3_1.Document) => void = () => {}): OpenAPIV3_1.Document {
    const copy = structuredClone(doc);
    copy.paths = { [GENERATE]: copy.paths?.[GENERATE] };
    change(copy);
    return copy;
  }
  const fuzz = async (document: OpenAPIV3_1.Document) => [
    ...(await fuzzDocument({ doc: document, send, seed: SEED, runs: 25 })).findings.keys(),
  ];

  test('as served: POST /api/v1/generate draws no finding', async () => {
    assert.deepEqual(await fuzz(generateOnly()), []);
  });

  test('an enum dropped from a body field (imageSize): refusals naming the field are reported', async () => {
    const loosened = generateOnly((copy) => {
      const imageSize = copy.components?.schemas?.GenerateRequest?.properties?.imageSize as Schema;
      for (const branch of (imageSize.anyOf ?? []) as Schema[]) delete branch.enum;
    });
    const findings = await fuzz(loosened);
    assert.ok(
      findings.some((finding) =>
        /^POST \/api\/v1\/generate refused a schema-valid request: imageSize must be one of/.test(finding),
      ),
      findings.join('\n'),
    );
  });

  test('a cross-field rule dropped (the mode and its references): its refusals are reported', async () => {
    // The body narrowed to the fields the rule joins (the prompt, the mode, the references), so the
    // catalog's own refusals (a model, a size, a quality drawn at random) do not come first. With the
    // rules, nothing is reported; without them, their refusals are.
    const narrowed = (keepRules: boolean) =>
      generateOnly((copy) => {
        const body = copy.components?.schemas?.GenerateRequest as Schema & { allOf?: unknown };
        assert.ok(Array.isArray(body.allOf), 'the served document states the rules');
        if (!keepRules) delete body.allOf;
        for (const field of Object.keys(body.properties ?? {}))
          if (!['prompt', 'mode', 'imageUrls', 'maskUrl'].includes(field)) delete body.properties?.[field];
      });
    assert.deepEqual(await fuzz(narrowed(true)), []);
    const findings = await fuzz(narrowed(false));
    assert.ok(
      findings.some((finding) =>
        /^POST \/api\/v1\/generate refused a schema-valid request: (mode text takes no imageUrls|maskUrl is only taken by mode edit \(this is mode text\))/.test(
          finding,
        ),
      ),
      findings.join('\n'),
    );
  });

  test('a status the route answers left out of the document: reported as undocumented', async () => {
    const undocumented = generateOnly((copy) => {
      const operation = copy.paths?.[GENERATE]?.post as OpenAPIV3_1.OperationObject;
      delete operation.responses?.['400'];
    });
    const findings = await fuzz(undocumented);
    assert.ok(findings.includes('POST /api/v1/generate answered 400 (not documented)'), findings.join('\n'));
  });
});
