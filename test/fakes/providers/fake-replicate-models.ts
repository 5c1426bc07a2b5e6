/**
 * The fake Replicate's models: their schemas as Cog writes them (OpenAPI, enums behind
 * `allOf`/`$ref`), and the validation of a create's input against them, like the real API's 422s.
 */
export interface FakeModelInput {
  type: 'string' | 'integer' | 'array' | 'boolean' | 'number';
  enum?: string[];
  format?: 'uri';
  maxItems?: number;
  minimum?: number;
  maximum?: number;
}

export interface FakeModel {
  /** `owner/name` */
  name: string;
  version: string;
  inputs: Record<string, FakeModelInput>;
  required?: string[];
  /**
   * An image tool's output file: `upscale` — the sent `image` resampled by `scale` (Real-ESRGAN);
   * `remove_background` — a PNG with alpha, the background transparent (851-labs/background-remover
   * with its defaults `background_type: "rgba"`, `format: "png"`). Absent: a solid picture.
   */
  tool?: 'upscale' | 'remove_background';
}

export function toOpenApi(model: FakeModel): unknown {
  const properties: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const [key, input] of Object.entries(model.inputs)) {
    if (input.enum) {
      // Cog puts each enum in its own component and refers to it through allOf.
      schemas[key] = { title: key, enum: input.enum, type: 'string', description: 'An enumeration.' };
      properties[key] = { allOf: [{ $ref: `#/components/schemas/${key}` }], description: key };
    } else if (input.type === 'array') {
      properties[key] = {
        type: 'array',
        items: { type: 'string', format: 'uri' },
        ...(input.maxItems ? { maxItems: input.maxItems } : {}),
      };
    } else {
      properties[key] = {
        type: input.type,
        ...(input.format ? { format: input.format } : {}),
        ...(input.minimum !== undefined ? { minimum: input.minimum } : {}),
        ...(input.maximum !== undefined ? { maximum: input.maximum } : {}),
      };
    }
  }
  return {
    openapi: '3.0.2',
    info: { title: 'Cog', version: '0.1.0' },
    components: {
      schemas: {
        Input: { type: 'object', title: 'Input', properties, required: model.required ?? ['prompt'] },
        Output: { type: 'string', format: 'uri' },
        ...schemas,
      },
    },
  };
}

export function validateInput(model: FakeModel, input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return '- input: Invalid type. Expected: object';
  const record = input as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    const spec = model.inputs[key];
    if (!spec) return `- input: Additional property ${key} is not allowed`;
    const ok =
      spec.type === 'array'
        ? Array.isArray(value) &&
          value.every(
            (v) => typeof v === 'string' && /^(https?:|data:image\/(png|jpeg|webp);base64,)/.test(v),
          )
        : spec.type === 'integer'
          ? Number.isInteger(value)
          : spec.type === 'string' && spec.format === 'uri'
            ? typeof value === 'string' && /^(https?:|data:image\/(png|jpeg|webp);base64,)/.test(value)
            : typeof value === spec.type;
    if (!ok) return `- input.${key}: Invalid type or format`;
    if (spec.enum && !spec.enum.includes(value as string)) {
      return `- input.${key}: ${key} must be one of the following: ${spec.enum.map((v) => `"${v}"`).join(', ')}`;
    }
    if (spec.maxItems !== undefined && Array.isArray(value) && value.length > spec.maxItems) {
      return `- input.${key}: Array must have at most ${spec.maxItems} items`;
    }
    if (
      typeof value === 'number' &&
      ((spec.minimum !== undefined && value < spec.minimum) ||
        (spec.maximum !== undefined && value > spec.maximum))
    ) {
      return `- input.${key}: out of range`;
    }
  }
  for (const key of model.required ?? ['prompt']) {
    if (!(key in record)) return `- input: ${key} is required`;
  }
  return undefined;
}
