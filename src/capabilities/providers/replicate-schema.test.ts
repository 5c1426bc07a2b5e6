import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readInputSchema } from './replicate-schema.js';

const cog = (
  properties: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  required?: unknown[],
) => ({
  components: { schemas: { Input: { type: 'object', properties, required }, ...extra } },
});

describe('replicate input schema', () => {
  test('plain fields keep their type, enum, format, bounds and maxItems; required names only', () => {
    const inputs = readInputSchema(
      cog(
        {
          prompt: { type: 'string' },
          seed: { type: 'integer', minimum: 0, maximum: 1000 },
          image_input: { type: 'array', items: { type: 'string', format: 'uri' }, maxItems: 3 },
        },
        {},
        ['prompt', 7],
      ),
    );
    assert.deepEqual(inputs?.required, ['prompt']);
    assert.equal(inputs?.fields.prompt?.type, 'string');
    assert.deepEqual(
      { min: inputs?.fields.seed?.minimum, max: inputs?.fields.seed?.maximum },
      { min: 0, max: 1000 },
    );
    assert.equal(inputs?.fields.image_input?.maxItems, 3);
  });

  test('an enum behind allOf/$ref (as Cog writes it) is resolved; the field’s own keys win', () => {
    const inputs = readInputSchema(
      cog(
        {
          resolution: { allOf: [{ $ref: '#/components/schemas/resolution' }], description: 'size' },
          aspect_ratio: { $ref: '#/components/schemas/aspect_ratio', type: 'string' },
        },
        {
          resolution: { type: 'string', enum: ['1K', '2K', '4K'] },
          aspect_ratio: { type: 'integer', enum: ['1:1', '16:9'] },
        },
      ),
    );
    assert.deepEqual(inputs?.fields.resolution, {
      type: 'string',
      enum: ['1K', '2K', '4K'],
      format: undefined,
      maxItems: undefined,
      minimum: undefined,
      maximum: undefined,
    });
    assert.equal(inputs?.fields.aspect_ratio?.type, 'string');
    assert.deepEqual(inputs?.fields.aspect_ratio?.enum, ['1:1', '16:9']);
  });

  test('a reference cycle ends instead of recursing forever; an unknown reference adds nothing', () => {
    const inputs = readInputSchema(
      cog(
        { a: { $ref: '#/components/schemas/Loop' }, b: { $ref: '#/components/schemas/Missing' } },
        { Loop: { $ref: '#/components/schemas/Loop', type: 'string' } },
      ),
    );
    assert.equal(inputs?.fields.a?.type, 'string');
    assert.equal(inputs?.fields.b?.type, undefined);
  });

  test('a document without components.schemas.Input.properties has no inputs', () => {
    for (const document of [undefined, {}, { components: {} }, { components: { schemas: { Input: {} } } }])
      assert.equal(readInputSchema(document), undefined);
  });
});
